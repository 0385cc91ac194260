// Command reproduce runs every experiment program of the module at its
// quick scale, one after the other, and writes one report: the main job of
// the project.
//
// The programs reproduce the experiments of the four papers the library
// implements:
//
//   - matrixgame: learning dynamics in zero-sum matrix games
//     (in-context-games-omd §4.1, §5);
//   - markovgame: Algorithm 1 in a discounted Markov game
//     (in-context-games-omd §4.3);
//   - incontext: transformers that play unseen games in context, Figure 1
//     (in-context-games-omd §5);
//   - incontext-omd and incontext-adapt: the same program's studies of
//     imitating OMD against model size (in-context-games-omd Theorems 4.1
//     and 4.3) and of adaptation against the best fixed policy, at a small
//     scale (-study omd, -study adapt; -scale paper runs them in full);
//   - nonstationary: MASTER and transformers on non-stationary bandits,
//     Figures 3–7 (nonstationary-transformers-master §5);
//   - nonstationary-sizes: the bandit transformers against model size and
//     training data, with the expert's and with optimal-arm labels, at a
//     small scale (-study sizes);
//   - metalearn: meta-learning across similar Markov games, App. F
//     (multi-agent-meta-rl §6);
//   - control: transformer training by quantized dynamic programming,
//     Tables 1–2 and Figures 6–7 (optimal-control-transformer-training §6).
//
// The transformer benchmark against PyTorch (examples/transformerbench)
// is not part of the default run because it needs an optional Python
// dependency; select it with -only.
//
// Usage:
//
//	go run ./examples/reproduce [flags]
//
// Flags:
//
//	-only  comma-separated subset of the runs above (default: all of
//	       them; transformerbench only on request)
//	-out   output folder (default out/reproduce); run p writes its
//	       files to out/reproduce/p
//
// Each program is built and run with the go command of the current
// toolchain from the module's root, so the command must run inside a
// checkout of the module. The whole default run takes 5 to 7 minutes on
// two cores (4 min 42 s measured on 2026-11-26; most of it the two
// transformer experiments). The report is out/reproduce/report.md: each
// program's printed tables, its run time and the files it wrote. Ctrl-C
// stops the run and writes the report of the programs that finished.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// program is one experiment program: its folder under examples and what
// it reproduces.
type program struct {
	name, what string
	args       []string // extra flags (none: the program's quick default)
	// id names the run in the report, its output folder and -only; empty
	// means name (a program run more than once, for several studies, has
	// one id per study).
	id string
}

// key returns the run's id.
func (p program) key() string {
	if p.id != "" {
		return p.id
	}
	return p.name
}

var programs = []program{
	{name: "matrixgame", what: "in-context-games-omd §4.1, §5: duality gap of the learners' self-play in biased rock-paper-scissors"},
	{name: "markovgame", what: "in-context-games-omd §4.3: Algorithm 1 in a two-state discounted Markov game"},
	{name: "incontext", what: "in-context-games-omd §5, Figure 1: pretrained transformers playing unseen games in context"},
	{id: "incontext-omd", name: "incontext", what: "in-context-games-omd Theorems 4.1 and 4.3: transformers imitating OMD, error against model size, data and T (small scale)",
		args: []string{"-study", "omd"}},
	{id: "incontext-adapt", name: "incontext", what: "in-context adaptation: families from ρ = 0.1 to i.i.d. games, NE and DPT labels, against the best fixed policy (small scale)",
		args: []string{"-study", "adapt"}},
	{name: "nonstationary", what: "nonstationary-transformers-master §5, Figures 3–7: MASTER, LinUCB, TS and a transformer on non-stationary bandits"},
	{id: "nonstationary-sizes", name: "nonstationary", what: "nonstationary-transformers-master §5: bandit transformers against model size and data, LinUCB and DPT labels (small scale)",
		args: []string{"-study", "sizes"}},
	{name: "metalearn", what: "multi-agent-meta-rl §6, App. F: meta-learning against individual learning on similar Markov games"},
	{name: "control", what: "optimal-control-transformer-training §6: Tables 1–2 and Figures 6–7, larger sweeps, and the DP against Adam with restarts",
		args: []string{"-compare", "0.5,2", "-compare-seeds", "3"}},
	{name: "transformerbench", what: "the transformer's training and KV-cached play next to PyTorch (needs python3-torch)"},
}

// optional programs run only when selected with -only.
var optional = map[string]bool{"transformerbench": true}

type config struct {
	only []string
	out  string
}

func main() {
	c, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root, err := moduleRoot(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		os.Exit(1)
	}
	if err := run(ctx, c, root, goRun, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	only := fs.String("only", "", "comma-separated subset of: "+names())
	var c config
	fs.StringVar(&c.out, "out", filepath.Join("out", "reproduce"), "output folder")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	for _, p := range strings.Split(*only, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if !slices.ContainsFunc(programs, func(q program) bool { return q.key() == p }) {
			return c, fmt.Errorf("unknown program %q (want one of %s)", p, names())
		}
		c.only = append(c.only, p)
	}
	return c, nil
}

func names() string {
	var n []string
	for _, p := range programs {
		n = append(n, p.key())
	}
	return strings.Join(n, ", ")
}

// selected returns the programs to run, in the report's order.
func (c config) selected() []program {
	var out []program
	for _, p := range programs {
		if len(c.only) == 0 && !optional[p.key()] || slices.Contains(c.only, p.key()) {
			out = append(out, p)
		}
	}
	return out
}

// runner runs one program from the module root with the given flags and
// returns what it printed on standard output.
type runner func(ctx context.Context, root, name string, args []string, stderr io.Writer) (string, error)

// settle returns the text a terminal would show for out: of a line
// rewritten with carriage returns (a progress counter), only its last
// version.
func settle(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if k := strings.LastIndexByte(l, '\r'); k >= 0 {
			l = l[k+1:]
		}
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// goRun runs `go run ./examples/<name> args…` in root.
func goRun(ctx context.Context, root, name string, args []string, stderr io.Writer) (string, error) {
	cmd := exec.CommandContext(ctx, "go", append([]string{"run", "./examples/" + name}, args...)...)
	cmd.Dir = root
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = stderr
	err := cmd.Run()
	return stdout.String(), err
}

// moduleRoot returns the directory of the module's go.mod, which must be
// github.com/icrl-go/icrl.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Path}} {{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module (run this inside a checkout of github.com/icrl-go/icrl): %w", err)
	}
	path, dir, ok := strings.Cut(strings.TrimSpace(string(out)), " ")
	if !ok || path != "github.com/icrl-go/icrl" {
		return "", fmt.Errorf("the current module is %q, not github.com/icrl-go/icrl", path)
	}
	return dir, nil
}

func run(ctx context.Context, c config, root string, rn runner, w io.Writer) error {
	out, err := filepath.Abs(c.out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var rep strings.Builder
	fmt.Fprintf(&rep, "# icrl: reproduction report\n\nGenerated %s by `go run ./examples/reproduce`. Each section is one example program run at its quick scale; its files are in the folder named after it.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	var failed []string
	total := time.Now()
	for _, p := range c.selected() {
		dir := filepath.Join(out, p.key())
		args := append([]string{"-out", dir}, p.args...)
		fmt.Fprintf(w, "reproduce: running %s (%s)\n", p.key(), p.what)
		start := time.Now()
		stdout, err := rn(ctx, root, p.name, args, w)
		el := time.Since(start).Round(time.Second)
		fmt.Fprintf(&rep, "## %s\n\n%s. Run time %v; files in `%s`.\n\n", p.key(), p.what, el, p.key())
		if err != nil {
			if ctx.Err() != nil {
				// Ctrl-C: the report keeps the programs that finished.
				fmt.Fprintf(&rep, "**Interrupted** after %v; the programs after this one did not run.\n", el)
				if werr := os.WriteFile(filepath.Join(out, "report.md"), []byte(rep.String()), 0o644); werr != nil {
					return werr
				}
				fmt.Fprintf(w, "reproduce: interrupted; the report of the finished programs is in %s\n", filepath.Join(out, "report.md"))
				return fmt.Errorf("%s: %w", p.key(), ctx.Err())
			}
			failed = append(failed, p.key())
			fmt.Fprintf(&rep, "**Failed:** %v\n\n", err)
			fmt.Fprintf(w, "reproduce: %s failed after %v: %v\n", p.key(), el, err)
			continue
		}
		fmt.Fprintf(w, "reproduce: %s done in %v\n", p.key(), el)
		if files := listFiles(dir); len(files) > 0 {
			fmt.Fprintf(&rep, "Files: %s.\n\n", strings.Join(files, ", "))
		}
		if s := strings.TrimSpace(settle(stdout)); s != "" {
			if strings.Contains(s, "|---") { // the program prints Markdown tables
				fmt.Fprintf(&rep, "%s\n\n", demoteHeadings(s))
			} else {
				fmt.Fprintf(&rep, "```\n%s\n```\n\n", s)
			}
		}
	}
	fmt.Fprintf(&rep, "Total run time %v.\n", time.Since(total).Round(time.Second))
	if err := os.WriteFile(filepath.Join(out, "report.md"), []byte(rep.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(w, "reproduce: report written to %s\n", filepath.Join(out, "report.md"))
	if len(failed) > 0 {
		return errors.New("failed: " + strings.Join(failed, ", "))
	}
	return nil
}

// demoteHeadings moves Markdown headings of a program's output one level
// down, below the report's section heading.
func demoteHeadings(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			lines[i] = "#" + l
		}
	}
	return strings.Join(lines, "\n")
}

// listFiles returns the names of the files in dir, sorted.
func listFiles(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, "`"+e.Name()+"`")
		}
	}
	return out
}
