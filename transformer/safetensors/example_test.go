package safetensors_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/icrl-go/icrl/transformer/safetensors"
)

func ExampleWrite() {
	var buf bytes.Buffer
	err := safetensors.Write(&buf, []safetensors.Tensor{
		safetensors.FromFloat32("w", []int{2, 2}, []float32{1, 2, 3, 4}),
		safetensors.FromFloat64("b", []int{2}, []float64{0.5, -0.5}),
	}, map[string]string{"format": "pt"})
	if err != nil {
		log.Fatal(err)
	}
	b := buf.Bytes()
	fmt.Printf("%d bytes, header length %d\n", len(b), b[0])
	fmt.Printf("%s|\n", b[8:8+b[0]]) // | marks the end of the padding
	// Output:
	// 184 bytes, header length 144
	// {"__metadata__":{"format":"pt"},"b":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},"w":{"dtype":"F32","shape":[2,2],"data_offsets":[16,32]}} |
}

func ExampleRead() {
	var buf bytes.Buffer
	safetensors.Write(&buf, []safetensors.Tensor{
		safetensors.FromFloat32("w", []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
	}, nil)

	f, err := safetensors.Read(&buf)
	if err != nil {
		log.Fatal(err)
	}
	w, shape, err := f.Float32("w")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(f.Names(), shape, w)

	_, err = safetensors.ReadBytes([]byte{1, 0, 0})
	fmt.Println(err)
	// Output:
	// [w] [2 3] [1 2 3 4 5 6]
	// safetensors: invalid: file of 3 bytes is shorter than the 8-byte header length
}

func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "safetensors-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model.safetensors")

	err = safetensors.WriteFile(path, []safetensors.Tensor{
		safetensors.FromFloat64("theta", nil, []float64{3.25}),
	}, map[string]string{"step": "100"})
	if err != nil {
		log.Fatal(err)
	}
	f, err := safetensors.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	theta, shape, _ := f.Float64("theta")
	fmt.Println(theta, shape, f.Metadata["step"])
	// Output:
	// [3.25] [] 100
}
