"""A stand-in for torch (not packaged by Debian), enough for the official
graph/R-GAT/tools/accuracy_igbh.py: torch.load of a 1-D integer tensor
that torch.save wrote in its zip form (split_seeds.py's val_idx.pt),
torch.from_numpy and Tensor.to(torch.long). Written from torch.save's
documented file layout for tools/accuracyref/verify.sh: tensors are numpy
arrays here, and only the calls the script makes exist."""

import pickle
import zipfile

import numpy as np

long = np.int64
int64 = np.int64


class Tensor(np.ndarray):
    """A numpy array with the one method of torch.Tensor the script calls."""

    def to(self, dtype):
        return np.asarray(self).astype(dtype).view(Tensor)


def from_numpy(a):
    return np.asarray(a).view(Tensor)


class _Storage:
    """A storage class named by a pickle: the element type of its bytes."""

    def __init__(self, dtype):
        self.dtype = dtype


_STORAGES = {"LongStorage": np.int64, "IntStorage": np.int32, "FloatStorage": np.float32}


def _rebuild_tensor_v2(storage, offset, size, stride, requires_grad=False, hooks=None, *rest):
    if len(size) > 1 or (len(size) == 1 and size[0] > 1 and stride[0] != 1):
        raise ValueError("stand-in: only contiguous 1-D tensors")
    n = size[0] if size else 1
    return storage[offset:offset + n].view(Tensor)


class _Unpickler(pickle.Unpickler):
    def __init__(self, f, archive, z):
        super().__init__(f)
        self.archive, self.z = archive, z

    def find_class(self, module, name):
        if module == "torch._utils" and name == "_rebuild_tensor_v2":
            return _rebuild_tensor_v2
        if module == "torch" and name in _STORAGES:
            return _Storage(_STORAGES[name])
        if module == "collections" and name == "OrderedDict":
            import collections
            return collections.OrderedDict
        raise pickle.UnpicklingError("stand-in: %s.%s" % (module, name))

    def persistent_load(self, pid):
        kind, storage, key, _location, numel = pid
        if kind != "storage":
            raise pickle.UnpicklingError("stand-in: persistent id %r" % (kind,))
        data = self.z.read("%s/data/%s" % (self.archive, key))
        return np.frombuffer(data, dtype=storage.dtype, count=numel)


def load(path, map_location=None, **kwargs):
    with zipfile.ZipFile(path) as z:
        pkl = [n for n in z.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if not pkl:
            raise pickle.UnpicklingError("stand-in: no ARCHIVE/data.pkl in %s" % path)
        archive = pkl[0].split("/")[0]
        with z.open(pkl[0]) as f:
            return _Unpickler(f, archive, z).load()
