package kernels

// Mat is a strided view of a float32 matrix: element (i, j) is
// Data[i*RS+j*CS]. A transposed view swaps RS and CS.
type Mat struct {
	Data   []float32
	RS, CS int
}

// RowMajor returns the view of a row-major matrix with ld elements per
// row.
func RowMajor(data []float32, ld int) Mat { return Mat{Data: data, RS: ld, CS: 1} }

// T returns the transposed view.
func (m Mat) T() Mat { return Mat{Data: m.Data, RS: m.CS, CS: m.RS} }

// ActKind is an activation fused into a kernel's output.
type ActKind uint8

// The fused activations.
const (
	ActNone ActKind = iota
	ActRelu
	ActClip
)

// Activation is a fused activation: Relu, or Clip to [Min, Max].
type Activation struct {
	Kind     ActKind
	Min, Max float32
}

// Relu returns the Relu activation.
func Relu() Activation { return Activation{Kind: ActRelu} }

// Clip returns the activation clamping to [lo, hi].
func Clip(lo, hi float32) Activation { return Activation{Kind: ActClip, Min: lo, Max: hi} }

// Apply applies the activation to v in place.
func (a Activation) Apply(v []float32) {
	switch a.Kind {
	case ActRelu:
		for i, x := range v {
			if x < 0 {
				v[i] = 0
			}
		}
	case ActClip:
		lo, hi := a.Min, a.Max
		for i, x := range v {
			v[i] = clamp(x, lo, hi)
		}
	}
}

func (a Activation) one(x float32) float32 {
	switch a.Kind {
	case ActRelu:
		if x < 0 {
			return 0
		}
	case ActClip:
		return clamp(x, a.Min, a.Max)
	}
	return x
}

// clamp follows ONNX Clip: NaN stays NaN.
func clamp(x, lo, hi float32) float32 {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// Epilogue says how a GEMM combines its product with the output:
//
//	C = act(Alpha*A*B + Beta*C + bias + Residual)
//
// with bias Bias[i] per row (BiasPerRow) or Bias[j] per column.
type Epilogue struct {
	Alpha      float32
	Beta       float32
	Bias       []float32
	BiasPerRow bool
	// Residual, when its Data is not nil, is added before the activation;
	// it is indexed like C (for a batched problem, at the same offset).
	Residual Mat
	Act      Activation
}
