package rgat

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/mlperf-host/mlperf-host/internal/benchlib/pickle"
	"github.com/mlperf-host/mlperf-host/internal/dataset"
)

// torch.save's file of one tensor (the zip form, torch 1.6 and later):
// ARCHIVE/data.pkl, a pickle of _rebuild_tensor_v2(storage, offset,
// size, stride, requires_grad, hooks) whose storage is the persistent id
// ("storage", torch.LongStorage, KEY, location, numel), and
// ARCHIVE/data/KEY, the storage's little-endian bytes.
const rebuildTensor = "torch._utils._rebuild_tensor_v2"

// maxIndexElements bounds the elements of an index tensor ReadIndex
// reads (IGBH full's train_idx holds 94.6 million).
const maxIndexElements = 1 << 30

// storageTypes are the storages of the integer tensors an index file may
// hold, and their element sizes.
var storageTypes = map[string]int{"torch.LongStorage": 8, "torch.IntStorage": 4}

// ReadIndex reads a 1-D integer tensor torch.save wrote (split_seeds.py's
// val_idx.pt and train_idx.pt), as int64.
//
// # Errors
//
// Wraps [dataset.ErrCorrupt] for a file that is not such a tensor,
// saying what it holds instead.
func ReadIndex(r io.ReaderAt, size int64) ([]int64, error) {
	z, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: not a torch.save zip file: %w", dataset.ErrCorrupt, err)
	}
	var pkl *zip.File
	for _, f := range z.File {
		if path.Base(f.Name) == "data.pkl" && strings.Count(f.Name, "/") == 1 {
			pkl = f
			break
		}
	}
	if pkl == nil {
		return nil, fmt.Errorf("%w: no ARCHIVE/data.pkl in the zip file", dataset.ErrCorrupt)
	}
	b, err := readEntry(pkl, 1<<20)
	if err != nil {
		return nil, err
	}
	v, err := pickle.Load(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", dataset.ErrCorrupt, pkl.Name, err)
	}
	key, elem, offset, numel, err := tensorOf(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", dataset.ErrCorrupt, pkl.Name, err)
	}
	name := path.Join(path.Dir(pkl.Name), "data", key)
	for _, f := range z.File {
		if f.Name != name {
			continue
		}
		data, err := readEntry(f, int64(elem)*(offset+numel))
		if err != nil {
			return nil, err
		}
		if int64(len(data)) < int64(elem)*(offset+numel) {
			return nil, fmt.Errorf("%w: %s holds %d bytes, the tensor needs %d", dataset.ErrCorrupt, name, len(data), int64(elem)*(offset+numel))
		}
		out := make([]int64, numel)
		for i := range out {
			at := int64(elem) * (offset + int64(i))
			if elem == 8 {
				out[i] = int64(binary.LittleEndian.Uint64(data[at:]))
			} else {
				out[i] = int64(int32(binary.LittleEndian.Uint32(data[at:])))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: no storage %s in the zip file", dataset.ErrCorrupt, name)
}

// readEntry reads a zip entry of at most limit bytes.
func readEntry(f *zip.File, limit int64) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", dataset.ErrCorrupt, f.Name, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", dataset.ErrCorrupt, f.Name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: %s is over %d bytes", dataset.ErrCorrupt, f.Name, limit)
	}
	return b, nil
}

// tensorOf reads the unpickled call that rebuilds a contiguous 1-D
// integer tensor: its storage's key, element size, offset and length.
func tensorOf(v any) (key string, elem int, offset, numel int64, err error) {
	fn, args, ok := pickle.Call(v)
	if !ok || fn != rebuildTensor || len(args) < 4 {
		return "", 0, 0, 0, fmt.Errorf("want one tensor (%s), got %T %s", rebuildTensor, v, fn)
	}
	p, ok := args[0].(pickle.Persistent)
	id, _ := p.ID.(pickle.Tuple)
	if !ok || len(id) != 5 || id[0] != "storage" {
		return "", 0, 0, 0, fmt.Errorf("tensor storage %v: want (\"storage\", type, key, location, numel)", args[0])
	}
	typ, _ := pickle.Global(id[1])
	if elem = storageTypes[typ]; elem == 0 {
		return "", 0, 0, 0, fmt.Errorf("a tensor of %s: want torch.LongStorage or torch.IntStorage", typ)
	}
	key, ok = id[2].(string)
	if !ok || key == "" || key == ".." || strings.Contains(key, "/") {
		return "", 0, 0, 0, fmt.Errorf("storage key %v", id[2])
	}
	offset, ok = args[1].(int64)
	size, ok2 := args[2].(pickle.Tuple)
	stride, ok3 := args[3].(pickle.Tuple)
	if !ok || !ok2 || !ok3 || len(size) != 1 || len(stride) != 1 || offset < 0 {
		return "", 0, 0, 0, fmt.Errorf("want a 1-D tensor, got size %v stride %v offset %v", args[2], args[3], args[1])
	}
	numel, ok = size[0].(int64)
	if s, _ := stride[0].(int64); !ok || numel < 0 || numel > maxIndexElements || (numel > 1 && s != 1) {
		return "", 0, 0, 0, fmt.Errorf("want a contiguous 1-D tensor of at most %d elements, got size %v stride %v", maxIndexElements, size[0], stride[0])
	}
	if n, _ := id[4].(int64); n < offset+numel {
		return "", 0, 0, 0, fmt.Errorf("storage of %v elements for %d at offset %d", id[4], numel, offset)
	}
	return key, elem, offset, numel, nil
}

// WriteIndex writes v as torch.save writes a 1-D int64 tensor (as
// split_seeds.py's torch.randperm slices are): the zip form, the archive
// named archive, its storage "0".
func WriteIndex(w io.Writer, archive string, v []int64) error {
	var p pickle.Writer
	p.Global("torch._utils", "_rebuild_tensor_v2")
	p.Op('(')
	p.Op('(')
	p.Str("storage")
	p.Global("torch", "LongStorage")
	p.Str("0")
	p.Str("cpu")
	p.Int64(int64(len(v)))
	p.Op('t', 'Q')
	p.Int(0)
	p.Int64(int64(len(v)))
	p.Op(0x85)
	p.Int(1)
	p.Op(0x85, 0x89)
	p.Global("collections", "OrderedDict")
	p.Op(')', 'R', 't', 'R')
	var pkl bytes.Buffer
	if err := p.Encode(&pkl); err != nil {
		return err
	}
	data := make([]byte, 0, 8*len(v))
	for _, x := range v {
		data = binary.LittleEndian.AppendUint64(data, uint64(x))
	}
	z := zip.NewWriter(w)
	for _, e := range []struct {
		name string
		b    []byte
	}{{"data.pkl", pkl.Bytes()}, {"byteorder", []byte("little")}, {"data/0", data}, {"version", []byte("3\n")}} {
		f, err := z.CreateHeader(&zip.FileHeader{Name: archive + "/" + e.name, Method: zip.Store})
		if err != nil {
			return err
		}
		if _, err := f.Write(e.b); err != nil {
			return err
		}
	}
	return z.Close()
}
