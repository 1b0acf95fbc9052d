package unet3d

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Volume is a 3-D label volume in C order (the last dimension fastest),
// the order numpy gives the array nibabel reads.
type Volume struct {
	Shape  [3]int
	Labels []uint8
}

// ReadNIfTI reads a NIfTI-1 label volume (.nii, or .nii.gz when it starts
// with the gzip magic) as accuracy_kits.py does: the voxel values scaled
// by scl_slope and scl_inter when the slope is set, then truncated to
// uint8 (get_fdata().astype(np.uint8)). The file stores voxels with the
// first dimension fastest; the volume returned is in C order.
//
// # Errors
//
// A header that is not NIfTI-1 (sizeof_hdr 348, either byte order), a
// volume that is not 3-D, an unsupported data type (integer and float
// types up to 64 bits), or a file shorter than the volume.
func ReadNIfTI(r io.Reader) (Volume, error) {
	var head [2]byte
	buf := make([]byte, 0, 352)
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return Volume{}, fmt.Errorf("nifti: %w", err)
	}
	br := io.MultiReader(bytes.NewReader(head[:]), r)
	if head == [2]byte{0x1f, 0x8b} {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Volume{}, fmt.Errorf("nifti: %w", err)
		}
		defer zr.Close()
		br = zr
	}
	buf = buf[:348]
	if _, err := io.ReadFull(br, buf); err != nil {
		return Volume{}, fmt.Errorf("nifti header: %w", err)
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if bo.Uint32(buf) != 348 {
		bo = binary.BigEndian
		if bo.Uint32(buf) != 348 {
			return Volume{}, errors.New("nifti header: sizeof_hdr is not 348 (not a NIfTI-1 file)")
		}
	}
	ndim := int16(bo.Uint16(buf[40:]))
	var v Volume
	n := 1
	for i := range 3 {
		d := int(int16(bo.Uint16(buf[42+2*i:])))
		if d < 1 {
			return Volume{}, fmt.Errorf("nifti header: dim[%d] = %d", i+1, d)
		}
		v.Shape[i] = d
		n *= d
	}
	for i := 3; i < int(ndim) && i < 7; i++ {
		if d := int16(bo.Uint16(buf[42+2*i:])); d > 1 {
			return Volume{}, fmt.Errorf("nifti header: %d dimensions, want a 3-D volume", ndim)
		}
	}
	if ndim < 3 {
		return Volume{}, fmt.Errorf("nifti header: %d dimensions, want a 3-D volume", ndim)
	}
	datatype := int16(bo.Uint16(buf[70:]))
	voxOffset := int(math.Float32frombits(bo.Uint32(buf[108:])))
	slope := float64(math.Float32frombits(bo.Uint32(buf[112:])))
	inter := float64(math.Float32frombits(bo.Uint32(buf[116:])))
	size, read, err := niftiType(datatype, bo)
	if err != nil {
		return Volume{}, err
	}
	if voxOffset > 348 {
		if _, err := io.CopyN(io.Discard, br, int64(voxOffset-348)); err != nil {
			return Volume{}, fmt.Errorf("nifti: skip to vox_offset %d: %w", voxOffset, err)
		}
	}
	// Read what the file has before allocating what its header claims.
	data, err := io.ReadAll(io.LimitReader(br, int64(n*size)))
	if err != nil {
		return Volume{}, fmt.Errorf("nifti: %w", err)
	}
	if len(data) < n*size {
		return Volume{}, fmt.Errorf("nifti: %d voxels of %d bytes: the file ends after %d bytes", n, size, len(data))
	}
	scale := slope != 0 && !math.IsNaN(slope) && !(slope == 1 && inter == 0)
	v.Labels = make([]uint8, n)
	d0, d1, d2 := v.Shape[0], v.Shape[1], v.Shape[2]
	for i := range d0 {
		for j := range d1 {
			for k := range d2 {
				x := read(data[size*(i+d0*(j+d1*k)):])
				if scale {
					x = x*slope + inter
				}
				v.Labels[(i*d1+j)*d2+k] = uint8(int64(x)) // numpy's astype(uint8) wraps
			}
		}
	}
	return v, nil
}

// niftiType returns the byte size of a NIfTI data type and its reader.
func niftiType(dt int16, bo binary.ByteOrder) (int, func([]byte) float64, error) {
	switch dt {
	case 2: // uint8
		return 1, func(b []byte) float64 { return float64(b[0]) }, nil
	case 256: // int8
		return 1, func(b []byte) float64 { return float64(int8(b[0])) }, nil
	case 4: // int16
		return 2, func(b []byte) float64 { return float64(int16(bo.Uint16(b))) }, nil
	case 512: // uint16
		return 2, func(b []byte) float64 { return float64(bo.Uint16(b)) }, nil
	case 8: // int32
		return 4, func(b []byte) float64 { return float64(int32(bo.Uint32(b))) }, nil
	case 768: // uint32
		return 4, func(b []byte) float64 { return float64(bo.Uint32(b)) }, nil
	case 16: // float32
		return 4, func(b []byte) float64 { return float64(math.Float32frombits(bo.Uint32(b))) }, nil
	case 64: // float64
		return 8, func(b []byte) float64 { return math.Float64frombits(bo.Uint64(b)) }, nil
	case 1024: // int64
		return 8, func(b []byte) float64 { return float64(int64(bo.Uint64(b))) }, nil
	}
	return 0, nil, fmt.Errorf("nifti header: data type %d is not supported", dt)
}
