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
		if root != "/root" || len(args) < 2 || args[0] != "-out" || filepath.Dir(args[1]) != out || !strings.HasPrefix(id, name) {
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
	err = run(context.Background(), c, "/root", fake, &stdout, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "control") {
		t.Errorf("run with a failing program: error %v, want one naming control", err)
	}
	want := []string{"matrixgame", "markovgame", "incontext", "incontext-omd", "incontext-adapt", "incontext-distill", "incontext-joint", "nonstationary", "nonstationary-sizes", "metalearn", "control"}
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
	if err := run(context.Background(), c, "/root", fake, io.Discard, io.Discard); err == nil {
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
	if err := run(context.Background(), c, "/root", fake, &stdout, io.Discard); err != nil {
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
	run(context.Background(), c, "/root", fake, io.Discard, io.Discard)
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
	if err := run(ctx, c, "/root", fake, io.Discard, io.Discard); !errors.Is(err, context.Canceled) {
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
	if err := run(context.Background(), c, "/root", resume, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(ran) == 0 || ran[0] != "incontext" || slices.Contains(ran, "matrixgame") {
		t.Errorf("resumed run ran %v, want from incontext on", ran)
	}
	// -fresh starts every program over: the saved job is removed.
	c.fresh = true
	if err := run(context.Background(), c, "/root", func(context.Context, string, string, []string, io.Writer) (string, error) { return "t\n", nil }, io.Discard, io.Discard); err != nil {
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
