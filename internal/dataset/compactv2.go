package dataset

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// Version 2 of the compact format holds samples of any number of named
// tensors, each of a fixed or a per-sample shape:
//
//	0   8 bytes  magic "MLPHQSL" + version byte 0x02
//	8   u16      number of tensors, 1 to MaxTensors
//	10  u16      flags: bit 0 = labels present; other bits zero
//	12  u32      zero
//	16  u64      count: number of samples
//	24  per tensor, in sample order:
//	      u8 dtype (DType code), u8 ndim (0 to MaxDims), u16 name length
//	      (1 to 255), u32 zero, ndim × i64 dimensions (-1: varies per
//	      sample), the name's bytes, zero padding to a multiple of 8
//	..  u32      CRC-32C of the header bytes above
//	..  zero padding to a multiple of 8
//	..  shape table: for each sample, for each tensor, its varying
//	    dimensions as u32 (empty when no dimension varies)
//	..  u32      CRC-32C of the shape table
//	..  zero padding to a multiple of 64 (DataOffset)
//	DataOffset   the samples in index order, one after the other, each its
//	             tensors concatenated (C order, little-endian)
//	..  count × i32  labels, when flag bit 0 is set
//	..  u32      CRC-32C of the samples and labels
//
// Every integer is little-endian. Open checks both CRCs and the file's
// exact size against the shapes; Verify also checks the payload's CRC.
const (
	compactV2Version = 0x02
	compactV2Fixed   = 24
	// compactV2MaxHeader is enough bytes to hold any version-2 header.
	compactV2MaxHeader = compactV2Fixed + MaxTensors*(8+8*maxCompactDims+256+8) + 4
)

// writeCompactV2 writes src as a version-2 compact file.
func writeCompactV2(w io.Writer, src Dataset) error {
	schema := src.Schema()
	if err := schema.check(); err != nil {
		return fmt.Errorf("write compact: %w", err)
	}
	hdr := make([]byte, compactV2Fixed, compactV2MaxHeader)
	copy(hdr, compactMagic[:7])
	hdr[7] = compactV2Version
	binary.LittleEndian.PutUint16(hdr[8:], uint16(len(schema)))
	if src.Labels() != nil {
		binary.LittleEndian.PutUint16(hdr[10:], flagLabels)
	}
	binary.LittleEndian.PutUint64(hdr[16:], uint64(src.Len()))
	for _, t := range schema {
		hdr = append(hdr, byte(t.DType), byte(len(t.Shape)), 0, 0, 0, 0, 0, 0)
		binary.LittleEndian.PutUint16(hdr[len(hdr)-6:], uint16(len(t.Name)))
		for _, d := range t.Shape {
			hdr = binary.LittleEndian.AppendUint64(hdr, uint64(int64(d)))
		}
		hdr = append(hdr, t.Name...)
		for len(hdr)%8 != 0 {
			hdr = append(hdr, 0)
		}
	}
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.Checksum(hdr, castagnoli))
	for len(hdr)%8 != 0 {
		hdr = append(hdr, 0)
	}
	start := len(hdr)
	for i := range src.Len() {
		shapes, err := src.Shapes(i)
		if err != nil {
			return fmt.Errorf("write compact: %w", err)
		}
		for k, t := range schema {
			for j, d := range t.Shape {
				if d == Varies {
					hdr = binary.LittleEndian.AppendUint32(hdr, uint32(shapes[k][j]))
				}
			}
		}
	}
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.Checksum(hdr[start:], castagnoli))
	return writeCompactBody(w, src, hdr)
}

// openCompactV2 reads a version-2 file whose first bytes are head.
func openCompactV2(path string, r io.ReaderAt, size int64, head []byte) (*compact, error) {
	bad := func(format string, args ...any) (*compact, error) {
		return nil, fmt.Errorf("%w: compact header: %s", ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if len(head) < compactV2Fixed {
		return bad("%d bytes, want at least %d", len(head), compactV2Fixed)
	}
	nt := int(binary.LittleEndian.Uint16(head[8:]))
	flags := binary.LittleEndian.Uint16(head[10:])
	count := binary.LittleEndian.Uint64(head[16:])
	switch {
	case nt == 0 || nt > MaxTensors:
		return bad("%d tensors, want 1 to %d", nt, MaxTensors)
	case flags&^flagLabels != 0 || binary.LittleEndian.Uint32(head[12:]) != 0:
		return bad("unknown flags %#x", flags)
	case count == 0 || count > maxCount:
		return bad("count %d, want 1 to %d", count, maxCount)
	}
	schema := make(Schema, 0, nt)
	p := compactV2Fixed
	nvar := 0
	for k := range nt {
		if len(head) < p+8 {
			return bad("tensor %d: header ends at %d bytes", k, len(head))
		}
		dt, ndim, nlen := DType(head[p]), int(head[p+1]), int(binary.LittleEndian.Uint16(head[p+2:]))
		if dt.Size() == 0 || ndim > maxCompactDims || nlen == 0 || nlen > 255 || binary.LittleEndian.Uint32(head[p+4:]) != 0 {
			return bad("tensor %d: dtype code %d, %d dimensions, name of %d bytes", k, head[p], ndim, nlen)
		}
		p += 8
		end := p + 8*ndim + nlen
		if len(head) < end {
			return bad("tensor %d: header ends at %d bytes", k, len(head))
		}
		t := TensorSpec{DType: dt, Shape: make([]int, ndim)}
		for j := range ndim {
			d := int64(binary.LittleEndian.Uint64(head[p+8*j:]))
			if d < Varies || d > math.MaxInt32 {
				return bad("tensor %d: dimension %d is %d", k, j, d)
			}
			t.Shape[j] = int(d)
			if d == Varies {
				nvar++
			}
		}
		t.Name = string(head[p+8*ndim : end])
		schema = append(schema, t)
		p = int(alignUp(int64(end), 8))
	}
	if len(head) < p+4 {
		return bad("header ends at %d bytes", len(head))
	}
	if got, want := binary.LittleEndian.Uint32(head[p:]), crc32.Checksum(head[:p], castagnoli); got != want {
		return bad("header CRC %08x, computed %08x", got, want)
	}
	if err := schema.check(); err != nil {
		return nil, err
	}
	d := &compact{path: path, r: r, schema: schema, count: int(count), nvar: nvar}
	tableOff := alignUp(int64(p+4), 8)
	tableLen := int64(count) * int64(nvar) * 4
	if tableOff+tableLen+4 > size {
		return nil, fmt.Errorf("%w: %d bytes, shorter than its shape table (%d samples): truncated", ErrCorrupt, size, count)
	}
	if nvar == 0 {
		d.fixed = schema.Shapes()
		d.size = int64(schema.SampleBytes(d.fixed))
	} else if err := d.readShapes(tableOff, tableLen); err != nil {
		return nil, err
	}
	d.dataOff = alignUp(tableOff+tableLen+4, compactAlign)
	var labels int64
	if flags&flagLabels != 0 {
		labels = 4 * int64(count)
	}
	last, n := d.span(d.count - 1)
	if want := d.dataOff + last + n + labels + 4; size != want {
		return nil, fmt.Errorf("%w: %d bytes, the header and shapes (%d samples of %s) say %d: truncated or appended to",
			ErrCorrupt, size, count, schema, want)
	}
	if labels > 0 {
		if err := d.readLabels(d.dataOff + last + n); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// readShapes reads and checks the shape table and computes every sample's
// offset.
func (d *compact) readShapes(off, n int64) error {
	b := make([]byte, n+4)
	if _, err := d.r.ReadAt(b, off); err != nil {
		return fmt.Errorf("%w: shape table: %w", ErrCorrupt, err)
	}
	if got, want := binary.LittleEndian.Uint32(b[n:]), crc32.Checksum(b[:n], castagnoli); got != want {
		return fmt.Errorf("%w: shape table CRC %08x, computed %08x", ErrCorrupt, got, want)
	}
	d.dims = make([]uint32, d.count*d.nvar)
	for i := range d.dims {
		d.dims[i] = binary.LittleEndian.Uint32(b[4*i:])
		if d.dims[i] > math.MaxInt32 {
			return fmt.Errorf("%w: sample %d: dimension %d", ErrCorrupt, i/d.nvar, d.dims[i])
		}
	}
	d.offs = make([]int64, d.count+1)
	for i := range d.count {
		shapes := d.sampleShapes(i)
		if err := d.schema.CheckShapes(shapes); err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
		d.offs[i+1] = d.offs[i] + int64(d.schema.SampleBytes(shapes))
		if d.offs[i+1] > 1<<50 {
			return fmt.Errorf("%w: samples of more than 2^50 bytes", ErrCorrupt)
		}
	}
	return nil
}
