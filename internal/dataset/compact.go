package dataset

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// The compact format (.mlph): one file holding every sample and, optionally,
// the labels, readable by index with one positioned read. Version 1 holds
// samples of one fixed-shape tensor; version 2 (compactv2.go) any number
// of named tensors of fixed or varying shapes. Version 1:
//
//	0   8 bytes  magic "MLPHQSL" + version byte 0x01
//	8   u8       dtype (DType code)
//	9   u8       ndim, 0 to MaxDims
//	10  u16      flags: bit 0 = labels present; other bits zero
//	12  u32      zero
//	16  u64      count: number of samples
//	24  ndim×u64 one sample's shape
//	..  u32      CRC-32C of the header bytes above
//	..  zero padding to a multiple of 64 (DataOffset)
//	DataOffset   count × sample bytes, C order, little-endian
//	..  count × i32  labels, when flag bit 0 is set
//	..  u32      CRC-32C of the samples and labels
//
// Every integer is little-endian. Open checks the header's CRC and the
// file's exact size; Verify also checks the payload's CRC.
const (
	compactMagic   = "MLPHQSL\x01"
	flagLabels     = 1
	compactAlign   = 64
	compactFixed   = 24
	maxCompactDims = 8
)

// MaxDims is the most dimensions a compact-format sample may have.
const MaxDims = maxCompactDims

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// CompactHeader is a compact file's decoded header.
type CompactHeader struct {
	Spec      Spec
	Count     int
	HasLabels bool
	// DataOffset is where the first sample starts.
	DataOffset int64
}

// payloadSize returns the bytes between DataOffset and the trailing CRC.
func (h CompactHeader) payloadSize() int64 {
	n := int64(h.Count) * int64(h.Spec.Bytes())
	if h.HasLabels {
		n += 4 * int64(h.Count)
	}
	return n
}

// FileSize returns the size a file with this header must have.
func (h CompactHeader) FileSize() int64 { return h.DataOffset + h.payloadSize() + 4 }

// maxCount bounds a compact file's sample count (2^31 - 1).
const maxCount = 1<<31 - 1

// ParseCompactHeader decodes the header at the start of b, which must hold
// at least the fixed part and the shape (CompactHeaderSize bytes for the
// largest shape is always enough).
//
// # Errors
//
// Wraps [ErrCorrupt] for a bad magic or version, dtype, rank, flags, count,
// header CRC, or a sample size past the limit.
func ParseCompactHeader(b []byte) (CompactHeader, error) {
	bad := func(format string, args ...any) (CompactHeader, error) {
		return CompactHeader{}, fmt.Errorf("%w: compact header: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if len(b) < compactFixed {
		return bad("%d bytes, want at least %d", len(b), compactFixed)
	}
	if string(b[:7]) != compactMagic[:7] {
		return bad("not an mlperf-host data set (magic % x)", b[:8])
	}
	if b[7] != compactMagic[7] {
		return bad("format version %d, this mlperf-host reads versions %d and %d", b[7], compactMagic[7], compactV2Version)
	}
	dt := DType(b[8])
	if dt.Size() == 0 {
		return bad("unknown dtype code %d", b[8])
	}
	ndim := int(b[9])
	if ndim > maxCompactDims {
		return bad("%d dimensions, at most %d", ndim, maxCompactDims)
	}
	flags := binary.LittleEndian.Uint16(b[10:])
	if flags&^flagLabels != 0 || binary.LittleEndian.Uint32(b[12:]) != 0 {
		return bad("unknown flags %#x", flags)
	}
	count := binary.LittleEndian.Uint64(b[16:])
	if count == 0 || count > maxCount {
		return bad("count %d, want 1 to %d", count, maxCount)
	}
	end := compactFixed + 8*ndim
	if len(b) < end+4 {
		return bad("%d bytes, want %d", len(b), end+4)
	}
	shape := make([]int, ndim)
	for i := range shape {
		d := binary.LittleEndian.Uint64(b[compactFixed+8*i:])
		if d == 0 || d > 1<<31 {
			return bad("dimension %d is %d", i, d)
		}
		shape[i] = int(d)
	}
	if got, want := binary.LittleEndian.Uint32(b[end:]), crc32.Checksum(b[:end], castagnoli); got != want {
		return bad("header CRC %08x, computed %08x", got, want)
	}
	spec := Spec{DType: dt, Shape: shape}
	if err := checkSize(spec); err != nil {
		return CompactHeader{}, err
	}
	return CompactHeader{
		Spec: spec, Count: int(count), HasLabels: flags&flagLabels != 0,
		DataOffset: alignUp(int64(end+4), compactAlign),
	}, nil
}

func alignUp(n, a int64) int64 { return (n + a - 1) / a * a }

// CompactHeaderSize is enough bytes to hold any compact header.
const CompactHeaderSize = compactFixed + 8*maxCompactDims + 4

// WriteCompact writes a data set in the compact format: every sample of
// src in index order, and its labels when it has them. A data set of one
// fixed-shape tensor is written as version 1 (which every mlperf-host
// reads), any other as version 2.
func WriteCompact(w io.Writer, src Dataset) error {
	spec, ok := src.Schema().Single()
	if !ok {
		return writeCompactV2(w, src)
	}
	if len(spec.Shape) > maxCompactDims {
		return fmt.Errorf("write compact: %d dimensions, the format holds at most %d", len(spec.Shape), maxCompactDims)
	}
	labels := src.Labels()
	hdr := make([]byte, compactFixed+8*len(spec.Shape), CompactHeaderSize)
	copy(hdr, compactMagic)
	hdr[8] = byte(spec.DType)
	hdr[9] = byte(len(spec.Shape))
	if labels != nil {
		binary.LittleEndian.PutUint16(hdr[10:], flagLabels)
	}
	binary.LittleEndian.PutUint64(hdr[16:], uint64(src.Len()))
	for i, d := range spec.Shape {
		binary.LittleEndian.PutUint64(hdr[compactFixed+8*i:], uint64(d))
	}
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.Checksum(hdr, castagnoli))
	return writeCompactBody(w, src, hdr)
}

// writeCompactBody writes the header (padded to compactAlign), every
// sample, the labels and the payload's CRC.
func writeCompactBody(w io.Writer, src Dataset, hdr []byte) error {
	for int64(len(hdr))%compactAlign != 0 {
		hdr = append(hdr, 0)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.Write(hdr); err != nil {
		return fmt.Errorf("write compact: %w", err)
	}
	crc := crc32.New(castagnoli)
	out := io.MultiWriter(bw, crc)
	err := ReadAll(src, func(_ int, _ [][]int, data []byte) error {
		_, err := out.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("write compact: %w", err)
	}
	if labels := src.Labels(); labels != nil {
		lb := make([]byte, 4*len(labels))
		for i, l := range labels {
			binary.LittleEndian.PutUint32(lb[4*i:], uint32(int32(l)))
		}
		if _, err := out.Write(lb); err != nil {
			return fmt.Errorf("write compact: %w", err)
		}
	}
	bw.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write compact: %w", err)
	}
	return nil
}

// compact is an open compact-format file, of either version.
type compact struct {
	path    string
	r       io.ReaderAt
	closer  io.Closer
	schema  Schema
	count   int
	dataOff int64
	// size is every sample's size when the schema is fixed; otherwise
	// offs[i] is sample i's offset from dataOff (count+1 entries) and dims
	// holds each sample's varying dimensions (nvar per sample).
	size   int64
	offs   []int64
	dims   []uint32
	nvar   int
	fixed  [][]int
	labels []int
}

var _ Dataset = (*compact)(nil)

// OpenCompact opens a compact-format file: it checks the header (and a
// version-2 file's shape table) and the file's size, and reads the
// labels.
func OpenCompact(path string) (Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open data set: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	d, err := openCompact(path, f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	d.closer = f
	return d, nil
}

// openCompact reads a compact file of size bytes from r.
func openCompact(path string, r io.ReaderAt, size int64) (*compact, error) {
	b := make([]byte, compactV2MaxHeader)
	n, err := r.ReadAt(b, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	b = b[:n]
	if len(b) >= 8 && string(b[:7]) == compactMagic[:7] && b[7] == compactV2Version {
		return openCompactV2(path, r, size, b)
	}
	h, err := ParseCompactHeader(b)
	if err != nil {
		return nil, err
	}
	if size != h.FileSize() {
		return nil, fmt.Errorf("%w: %d bytes, the header (%d samples of %s) says %d: truncated or appended to",
			ErrCorrupt, size, h.Count, h.Spec, h.FileSize())
	}
	d := &compact{path: path, r: r, schema: SingleSchema(h.Spec), count: h.Count, dataOff: h.DataOffset,
		size: int64(h.Spec.Bytes()), fixed: [][]int{h.Spec.Shape}}
	if h.HasLabels {
		if err := d.readLabels(h.DataOffset + int64(h.Count)*int64(h.Spec.Bytes())); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// readLabels reads count i32 labels at off.
func (d *compact) readLabels(off int64) error {
	lb := make([]byte, 4*d.count)
	if _, err := d.r.ReadAt(lb, off); err != nil {
		return fmt.Errorf("%w: labels: %w", ErrCorrupt, err)
	}
	d.labels = make([]int, d.count)
	for i := range d.labels {
		d.labels[i] = int(int32(binary.LittleEndian.Uint32(lb[4*i:])))
	}
	return nil
}

func (d *compact) Name() string   { return d.path }
func (d *compact) Len() int       { return d.count }
func (d *compact) Schema() Schema { return d.schema }
func (d *compact) Labels() []int  { return d.labels }

func (d *compact) Close() error {
	if d.closer == nil {
		return nil
	}
	return d.closer.Close()
}

func (d *compact) Shapes(i int) ([][]int, error) {
	if err := checkIndex(d, i); err != nil {
		return nil, err
	}
	if d.offs == nil {
		return d.fixed, nil
	}
	return d.sampleShapes(i), nil
}

// sampleShapes builds sample i's shapes from its varying dimensions.
func (d *compact) sampleShapes(i int) [][]int {
	out := make([][]int, len(d.schema))
	v := d.dims[i*d.nvar:]
	for t, ts := range d.schema {
		sh := make([]int, len(ts.Shape))
		for k, dim := range ts.Shape {
			if dim == Varies {
				dim, v = int(v[0]), v[1:]
			}
			sh[k] = dim
		}
		out[t] = sh
	}
	return out
}

// span returns where sample i lies, from dataOff.
func (d *compact) span(i int) (off, n int64) {
	if d.offs == nil {
		return int64(i) * d.size, d.size
	}
	return d.offs[i], d.offs[i+1] - d.offs[i]
}

func (d *compact) ReadSample(i int, dst []byte) error {
	if err := checkRead(d, i, dst); err != nil {
		return err
	}
	off, _ := d.span(i)
	if _, err := d.r.ReadAt(dst, d.dataOff+off); err != nil {
		return fmt.Errorf("data set %s: sample %d: %w", d.path, i, err)
	}
	return nil
}

// payloadSize returns the bytes between dataOff and the trailing CRC.
func (d *compact) payloadSize() int64 {
	off, n := d.span(d.count - 1)
	p := off + n
	if d.labels != nil {
		p += 4 * int64(d.count)
	}
	return p
}

// VerifyBytes implements Verifier: the payload and its CRC.
func (d *compact) VerifyBytes() int64 { return d.payloadSize() + 4 }

// Verify checks the payload's CRC: every sample and label as written.
func (d *compact) Verify() error {
	crc := crc32.New(castagnoli)
	sr := io.NewSectionReader(d.r, d.dataOff, d.payloadSize())
	if _, err := io.Copy(crc, sr); err != nil {
		return fmt.Errorf("data set %s: %w", d.path, err)
	}
	var b [4]byte
	if _, err := d.r.ReadAt(b[:], d.dataOff+d.payloadSize()); err != nil {
		return fmt.Errorf("data set %s: %w", d.path, err)
	}
	if got, want := binary.LittleEndian.Uint32(b[:]), crc.Sum32(); got != want {
		return fmt.Errorf("data set %s: %w: payload CRC %08x, computed %08x", d.path, ErrCorrupt, got, want)
	}
	return nil
}
