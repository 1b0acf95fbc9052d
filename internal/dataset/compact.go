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
// the labels, readable by index with one positioned read.
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
		return bad("format version %d, this mlperf-host reads version %d", b[7], compactMagic[7])
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
// src in index order, and its labels when it has them.
func WriteCompact(w io.Writer, src Dataset) error {
	spec := src.Spec()
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
	for int64(len(hdr))%compactAlign != 0 {
		hdr = append(hdr, 0)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if _, err := bw.Write(hdr); err != nil {
		return fmt.Errorf("write compact: %w", err)
	}
	crc := crc32.New(castagnoli)
	out := io.MultiWriter(bw, crc)
	buf := make([]byte, spec.Bytes())
	for i := range src.Len() {
		if err := src.ReadSample(i, buf); err != nil {
			return fmt.Errorf("write compact: %w", err)
		}
		if _, err := out.Write(buf); err != nil {
			return fmt.Errorf("write compact: %w", err)
		}
	}
	if labels != nil {
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

// compact is an open compact-format file.
type compact struct {
	path   string
	f      *os.File
	h      CompactHeader
	labels []int
}

var _ Dataset = (*compact)(nil)

// OpenCompact opens a compact-format file: it checks the header and the
// file's size and reads the labels.
func OpenCompact(path string) (Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open data set: %w", err)
	}
	d, err := openCompact(path, f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("data set %s: %w", path, err)
	}
	return d, nil
}

func openCompact(path string, f *os.File) (*compact, error) {
	b := make([]byte, CompactHeaderSize)
	n, err := io.ReadFull(f, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	h, err := ParseCompactHeader(b[:n])
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() != h.FileSize() {
		return nil, fmt.Errorf("%w: %d bytes, the header (%d samples of %s) says %d: truncated or appended to",
			ErrCorrupt, st.Size(), h.Count, h.Spec, h.FileSize())
	}
	d := &compact{path: path, f: f, h: h}
	if h.HasLabels {
		lb := make([]byte, 4*h.Count)
		if _, err := f.ReadAt(lb, h.DataOffset+int64(h.Count)*int64(h.Spec.Bytes())); err != nil {
			return nil, fmt.Errorf("%w: labels: %w", ErrCorrupt, err)
		}
		d.labels = make([]int, h.Count)
		for i := range d.labels {
			d.labels[i] = int(int32(binary.LittleEndian.Uint32(lb[4*i:])))
		}
	}
	return d, nil
}

func (d *compact) Name() string  { return d.path }
func (d *compact) Len() int      { return d.h.Count }
func (d *compact) Spec() Spec    { return d.h.Spec }
func (d *compact) Labels() []int { return d.labels }
func (d *compact) Close() error  { return d.f.Close() }

func (d *compact) ReadSample(i int, dst []byte) error {
	if err := checkRead(d, i, dst); err != nil {
		return err
	}
	off := d.h.DataOffset + int64(i)*int64(len(dst))
	if _, err := d.f.ReadAt(dst, off); err != nil {
		return fmt.Errorf("data set %s: sample %d: %w", d.path, i, err)
	}
	return nil
}

// Verify checks the payload's CRC: every sample and label as written.
func (d *compact) Verify() error {
	crc := crc32.New(castagnoli)
	sr := io.NewSectionReader(d.f, d.h.DataOffset, d.h.payloadSize())
	if _, err := io.Copy(crc, sr); err != nil {
		return fmt.Errorf("data set %s: %w", d.path, err)
	}
	var b [4]byte
	if _, err := d.f.ReadAt(b[:], d.h.DataOffset+d.h.payloadSize()); err != nil {
		return fmt.Errorf("data set %s: %w", d.path, err)
	}
	if got, want := binary.LittleEndian.Uint32(b[:]), crc.Sum32(); got != want {
		return fmt.Errorf("data set %s: %w: payload CRC %08x, computed %08x", d.path, ErrCorrupt, got, want)
	}
	return nil
}
