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
	// transformer against OMD: mean reward 0.47 (the game's value is 4/9 ≈ 0.44)
}

// TestREADME checks that the README's first Go code block is this
// program's code from the type declaration on, so that the README shows
// what CI runs.
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
	code = code[strings.Index(code, "// Pennies is your own game"):]
	_, block, ok := strings.Cut(string(readme), "```go\n")
	if !ok {
		t.Fatal("README has no Go code block")
	}
	block, _, _ = strings.Cut(block, "```")
	if !strings.Contains(block, code) {
		t.Errorf("README's first Go block is not examples/first/main.go from its type on; it should contain:\n%s", code)
	}
}
