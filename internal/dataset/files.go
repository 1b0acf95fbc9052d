package dataset

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
)

// IsFile reports whether p is a file (not a directory) that exists.
func IsFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// ReadNPYFileHeader reads the header of the .npy file at path.
//
// # Errors
//
// The file's, or [ReadNPYHeader]'s naming the file.
func ReadNPYFileHeader(path string) (NPYHeader, error) {
	f, err := os.Open(path)
	if err != nil {
		return NPYHeader{}, err
	}
	defer f.Close()
	h, err := ReadNPYHeader(bufio.NewReaderSize(f, 256))
	if err != nil {
		return NPYHeader{}, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return h, nil
}

// WriteNPYFile writes data, an array of spec, as the .npy file at path.
func WriteNPYFile(path string, spec Spec, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = WriteNPY(f, spec, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Float32Bytes is v as a sample holds it: little-endian float32.
func Float32Bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// IsDir reports whether p is a directory that exists.
func IsDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
