package goengine

import (
	"github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"
)

// readExternal reads the external data of m's initializers and tensor
// attributes from the files in dir (the model file's directory; "" for a
// model given as bytes, where any external tensor is an error naming it
// and its file).
func readExternal(m *onnxpb.Model, dir string) error {
	var ext []*onnxpb.Tensor
	for i := range m.Graph.Initializers {
		ext = appendExternal(ext, &m.Graph.Initializers[i])
	}
	for i := range m.Graph.Nodes {
		for j := range m.Graph.Nodes[i].Attrs {
			a := &m.Graph.Nodes[i].Attrs[j]
			if a.T != nil {
				ext = appendExternal(ext, a.T)
			}
			for k := range a.Tensors {
				ext = appendExternal(ext, &a.Tensors[k])
			}
		}
	}
	if len(ext) == 0 {
		return nil
	}
	d, err := onnxpb.OpenExternalDir(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	for _, t := range ext {
		if err := d.Read(t); err != nil {
			return err
		}
	}
	return nil
}

func appendExternal(ext []*onnxpb.Tensor, t *onnxpb.Tensor) []*onnxpb.Tensor {
	if t.External {
		ext = append(ext, t)
	}
	return ext
}
