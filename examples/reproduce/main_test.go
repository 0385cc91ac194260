package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRunReport drives run with a fake runner: every selected program is
// run once with -out pointing into the report folder, in order, its
// Markdown output lands in the report with demoted headings, plain output
// in a code block, a failure is reported and makes run fail, and the
// optional benchmark runs only on request.
func TestRunReport(t *testing.T) {
	out := t.TempDir()
	var ran []string
	fake := func(ctx context.Context, root, name string, args []string, stderr io.Writer) (string, error) {
		id := filepath.Base(args[1])
		ran = append(ran, id)
		if root != testRoot || len(args) < 2 || args[0] != "-out" || filepath.Dir(args[1]) != out || !strings.HasPrefix(id, name) {
			t.Errorf("%s: root %q, args %v", name, root, args)
		}
		if err := os.MkdirAll(args[1], 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(args[1], "fig.png"), nil, 0o644); err != nil {
			return "", err
		}
		switch id {
		case "metalearn":
			return "## F.1\n\n| t | gap |\n|---|---|\n| 10 | 1 |\n", nil
		case "control":
			return "", errors.New("exit status 1")
		}
		return "plain table of " + name + "\n", nil
	}
	c, err := parseFlags([]string{"-out", out})
	if err != nil {
		t.Fatal(err)
	}
	var stdout strings.Builder
	err = run(context.Background(), c, testRoot, fake, &stdout, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "control") {
		t.Errorf("run with a failing program: error %v, want one naming control", err)
	}
	want := []string{"matrixgame", "markovgame", "incontext", "incontext-omd", "incontext-adapt", "incontext-distill", "incontext-joint", "omdnet", "nonstationary", "nonstationary-sizes", "nonstationary-posterior", "metalearn", "metalearn-poker", "control"}
	if strings.Join(ran, ",") != strings.Join(want, ",") {
		t.Errorf("ran %v, want %v", ran, want)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	rep := string(b)
	for _, s := range []string{"## matrixgame", "```\nplain table of matrixgame\n```", "### F.1", "| 10 | 1 |", "**Failed** after", "exit status 1", "`fig.png`", "This run took"} {
		if !strings.Contains(rep, s) {
			t.Errorf("report lacks %q:\n%s", s, rep)
		}
	}
	if stdout.String() != rep || strings.Contains(rep, doneFile) {
		t.Errorf("standard output is not the report, or the report lists the record:\n%s", stdout.String())
	}

	// The same command again resumes: only the failed program runs.
	ran = nil
	if err := run(context.Background(), c, testRoot, fake, io.Discard, io.Discard); err == nil {
		t.Error("the failing program passed on the second run")
	}
	if strings.Join(ran, ",") != "control" {
		t.Errorf("second run ran %v, want only control", ran)
	}
	// -only runs the named programs (again) and merges: the report keeps
	// the others' sections.
	ran = nil
	c, err = parseFlags([]string{"-only", "transformerbench,markovgame,incontext-adapt", "-out", out})
	if err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if err := run(context.Background(), c, testRoot, fake, &stdout, io.Discard); err != nil {
		t.Fatal(err)
	}
	if strings.Join(ran, ",") != "markovgame,incontext-adapt,transformerbench" {
		t.Errorf("-only: ran %v", ran)
	}
	for _, s := range []string{"## matrixgame", "## markovgame", "## transformerbench", "### F.1"} {
		if !strings.Contains(stdout.String(), s) {
			t.Errorf("-only report lacks %q:\n%s", s, stdout.String())
		}
	}
	// -fresh runs everything again.
	ran = nil
	c, _ = parseFlags([]string{"-fresh", "-out", out})
	run(context.Background(), c, testRoot, fake, io.Discard, io.Discard)
	if len(ran) != len(want) {
		t.Errorf("-fresh ran %v, want %v", ran, want)
	}
	if _, err := parseFlags([]string{"-only", "poker"}); err == nil {
		t.Error("unknown program accepted")
	}
}

// TestRunInterrupted cancels the run during the third program: the report
// holds the two finished programs and says where the run stopped.
func TestRunInterrupted(t *testing.T) {
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	fake := func(ctx context.Context, root, name string, args []string, stderr io.Writer) (string, error) {
		if n++; n == 3 {
			// A study saves a job before the interruption.
			if err := os.MkdirAll(args[1], 0o755); err != nil {
				return "", err
			}
			if err := os.WriteFile(filepath.Join(args[1], "saved-job.gob"), nil, 0o644); err != nil {
				return "", err
			}
			cancel()
			return "", ctx.Err()
		}
		return "table of " + name + "\n", nil
	}
	c, err := parseFlags([]string{"-out", out})
	if err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, c, testRoot, fake, io.Discard, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted run: error %v, want context.Canceled", err)
	}
	b, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	rep := string(b)
	for _, s := range []string{"table of matrixgame", "table of markovgame", "**Interrupted** during incontext"} {
		if !strings.Contains(rep, s) {
			t.Errorf("report lacks %q:\n%s", s, rep)
		}
	}
	if strings.Contains(rep, "## nonstationary") || strings.ContainsRune(rep, '\r') {
		t.Errorf("report of an interrupted run:\n%s", rep)
	}
	// The same command resumes from the interrupted program.
	var ran []string
	saved := filepath.Join(out, "incontext", "saved-job.gob")
	resume := func(ctx context.Context, root, name string, args []string, stderr io.Writer) (string, error) {
		ran = append(ran, filepath.Base(args[1]))
		if filepath.Base(args[1]) == "incontext" {
			if _, err := os.Stat(saved); err != nil {
				t.Errorf("the interrupted program's saved job is gone on resuming: %v", err)
			}
		}
		return "table of " + name + "\n", nil
	}
	if err := run(context.Background(), c, testRoot, resume, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(ran) == 0 || ran[0] != "incontext" || slices.Contains(ran, "matrixgame") {
		t.Errorf("resumed run ran %v, want from incontext on", ran)
	}
	// -fresh starts every program over: the saved job is removed.
	c.fresh = true
	if err := run(context.Background(), c, testRoot, func(context.Context, string, string, []string, io.Writer) (string, error) { return "t\n", nil }, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(saved); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-fresh kept the saved job of an older run: %v", err)
	}
}

// TestGoRun runs one real program through the go command at a tiny scale
// and finds the module root.
func TestGoRun(t *testing.T) {
	root, err := moduleRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	stdout, err := goRun(context.Background(), root, "matrixgame", []string{"-out", out, "-T", "300", "-seeds", "1", "-learners", "omd"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "omd") {
		t.Errorf("matrixgame printed %q", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "gap.csv")); err != nil {
		t.Error(err)
	}
}

func TestSettle(t *testing.T) {
	in := "table\nstep 1\rstep 2\rstep 3   \r\ndone\r\n"
	if got, want := settle(in), "table\nstep 3\ndone\n"; got != want {
		t.Fatalf("settle(%q) = %q, want %q", in, got, want)
	}
}

// testRoot is an empty folder that stands for the module root the fake
// runners run in: run fingerprints the sources below it.
var testRoot string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "reproduce-root")
	if err != nil {
		panic(err)
	}
	testRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// TestSourceHash: the fingerprint changes with a source's content and
// name, and ignores the output folder, hidden folders and other files.
func TestSourceHash(t *testing.T) {
	root := t.TempDir()
	out := filepath.Join(root, "out")
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	hash := func() string {
		t.Helper()
		h, err := sourceHash(root, out)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	write("go.mod", "module m\n")
	write("a/a.go", "package a\n")
	h0 := hash()
	write("out/x.go", "package x\n")
	write(".git/y.go", "package y\n")
	write("a/notes.md", "notes\n")
	if hash() != h0 {
		t.Error("the fingerprint changed with the output folder, a hidden folder or a non-source file")
	}
	write("a/a.go", "package a // changed\n")
	h1 := hash()
	if h1 == h0 {
		t.Error("the fingerprint did not change with a source's content")
	}
	if err := os.Rename(filepath.Join(root, "a/a.go"), filepath.Join(root, "a/b.go")); err != nil {
		t.Fatal(err)
	}
	if hash() == h1 {
		t.Error("the fingerprint did not change with a source's name")
	}
}

// TestRerunAfterCodeChange: a finished program is kept while the sources
// are the same and run again, from a clean folder, once they change.
func TestRerunAfterCodeChange(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ran []string
	fake := func(_ context.Context, _, name string, args []string, _ io.Writer) (string, error) {
		ran = append(ran, name)
		return "table\n", os.MkdirAll(args[1], 0o755)
	}
	c, err := parseFlags([]string{"-out", out, "-only", "matrixgame"})
	if err != nil {
		t.Fatal(err)
	}
	c.only = nil // the default selection, so that a finished program is kept
	c2 := c
	for range 2 {
		if err := run(context.Background(), c2, root, fake, io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	first := len(ran)
	if first != len(c.selected()) {
		t.Fatalf("the second run with the same sources ran %d programs again", first-len(c.selected()))
	}
	if err := os.WriteFile(filepath.Join(root, "a.go"), []byte("package a // changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := run(context.Background(), c2, root, fake, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(ran)-first != len(c.selected()) {
		t.Errorf("after a code change %d programs ran again, want all %d", len(ran)-first, len(c.selected()))
	}
}
