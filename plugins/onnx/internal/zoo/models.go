package zoo

import "github.com/mlperf-host/mlperf-host/plugins/onnx/internal/onnxpb"

// ResNet50 returns a random-weight ResNet-50 v1.5 (the stride of each
// downsampling bottleneck is on its 3×3 convolution), 1000 classes.
func ResNet50(seed uint64) []byte {
	b := newBuilder(seed)
	x := b.relu(b.conv("input", 3, 64, 7, 2, 1))
	x = b.node("MaxPool", []string{x}, onnxpb.IntsAttr("kernel_shape", 3, 3), onnxpb.IntsAttr("strides", 2, 2),
		onnxpb.IntsAttr("pads", 1, 1, 1, 1))
	cin := 64
	for stage, blocks := range []int{3, 4, 6, 3} {
		width := 64 << stage
		for i := range blocks {
			stride := 1
			if i == 0 && stage > 0 {
				stride = 2
			}
			y := b.relu(b.conv(x, cin, width, 1, 1, 1))
			y = b.relu(b.conv(y, width, width, 3, stride, 1))
			y = b.conv(y, width, 4*width, 1, 1, 1)
			short := x
			if i == 0 {
				short = b.conv(x, cin, 4*width, 1, stride, 1)
			}
			x = b.relu(b.node("Add", []string{y, short}))
			cin = 4 * width
		}
	}
	return b.model("resnet50_v1.5", b.head(x, cin, 1000), 1000)
}

// MobileNetV2 returns a random-weight MobileNetV2 (width 1.0), 1000
// classes.
func MobileNetV2(seed uint64) []byte {
	b := newBuilder(seed)
	x := b.relu6(b.conv("input", 3, 32, 3, 2, 1))
	cin := 32
	// Expansion t, output channels c, repeats n, first stride s.
	for _, st := range [][4]int{{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2}, {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}} {
		t, c, n, s := st[0], st[1], st[2], st[3]
		for i := range n {
			stride := 1
			if i == 0 {
				stride = s
			}
			hid := cin * t
			y := x
			if t != 1 {
				y = b.relu6(b.conv(y, cin, hid, 1, 1, 1))
			}
			y = b.relu6(b.conv(y, hid, hid, 3, stride, hid))
			y = b.conv(y, hid, c, 1, 1, 1)
			if stride == 1 && cin == c {
				y = b.node("Add", []string{x, y})
			}
			x, cin = y, c
		}
	}
	x = b.relu6(b.conv(x, cin, 1280, 1, 1, 1))
	return b.model("mobilenetv2", b.head(x, 1280, 1000), 1000)
}
