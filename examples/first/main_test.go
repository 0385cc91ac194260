package main

import (
	"os"
	"strings"
	"testing"
)

// Example runs the README's first program; CI checks its output.
func Example() {
	if err := run(); err != nil {
		panic(err)
	}
	// Output:
	// transformer against OMD: mean reward 0.48 (the game's value is 4/9 ≈ 0.44)
}

// TestREADME checks that the README's first Go code block is this
// program's file from its package clause on (a complete file that compiles
// when copied), so that the README shows what CI runs, and that its output
// block is the Example's.
func TestREADME(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	code = code[strings.Index(code, "package main"):]
	_, block, ok := strings.Cut(string(readme), "```go\n")
	if !ok {
		t.Fatal("README has no Go code block")
	}
	block, rest, _ := strings.Cut(block, "```")
	if block != code {
		t.Errorf("README's first Go block is not examples/first/main.go from its package clause on; it should be:\n%s", code)
	}
	if _, out, _ := strings.Cut(rest, "```\n"); !strings.HasPrefix(out, "transformer against OMD: mean reward 0.48") {
		t.Errorf("README's output block does not follow the program or is not the Example's output")
	}
}
