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
//   - incontext-omd, incontext-adapt, incontext-distill and
//     incontext-joint: the same program's studies of imitating OMD against
//     model size (in-context-games-omd Theorems 4.1 and 4.3), of adaptation
//     against the best fixed policy, of OMD imitators in self-play, and of
//     joint-action DPT against the plug-in posterior-Nash players, at a small scale
//     (-study omd, adapt, distill, joint; -scale paper runs them in full);
//   - omdnet: Theorem 4.1 of in-context-games-omd made executable, the
//     transformer whose hand-set weights run OMD (small scale);
//   - nonstationary: MASTER and transformers on non-stationary bandits,
//     Figures 3–7 (nonstationary-transformers-master §5);
//   - nonstationary-posterior: bandit transformers on posterior labels
//     against LinUCB and posterior sampling (small scale);
//   - nonstationary-sizes: the bandit transformers against model size and
//     training data, with the expert's and with optimal-arm labels, at a
//     small scale (-study sizes);
//   - metalearn: meta-learning across similar Markov games, App. F
//     (multi-agent-meta-rl §6);
//   - metalearn-poker: the Poker endgame of App. F.3 on a stand-in built
//     from public rules (-parts poker);
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
//	-only   comma-separated subset of the runs above to run (again);
//	        the report keeps the sections of the others that finished
//	        before (default: all of them; transformerbench only on
//	        request)
//	-fresh  run every selected program again from scratch, even one that
//	        finished (its folder, saved study jobs included, is removed)
//	-out    output folder (default out/reproduce); run p writes its
//	        files to out/reproduce/p
//
// Each program is built and run with the go command of the current
// toolchain from the repository's root (the workspace of the library and
// the examples module), so the command must run inside a checkout. The
// whole default run takes 5 to 7 minutes on two cores, most of it the
// transformer experiments and the control sweeps. The report is
// out/reproduce/report.md, also printed on standard output (progress goes
// to standard error: the programs' live lines on a terminal, a plain line
// per finished job otherwise): each program's printed tables, the date
// and run time of its run and the files it wrote, with paths relative to
// the repository's root. A program that finished leaves a record in its
// folder with the fingerprint of the sources it ran from (every .go file
// and go.mod, go.sum and go.work of the checkout), and a later run keeps
// it rather than running it again only if its flags and the sources are
// the same (a program whose code changed starts over from a clean folder;
// -fresh runs everything again from scratch, and a program named by -only
// that finished before starts over too): Ctrl-C stops the run, writes the
// report of the programs that finished and exits with status 130, and the
// same command then resumes where it stopped (an interrupted study resumes
// from its saved jobs).
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
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
	{id: "incontext-distill", name: "incontext", what: "in-context-games-omd Theorems 4.1 and 4.3 played: OMD imitators in self-play against OMD, with a DAgger round (small scale)",
		args: []string{"-study", "distill"}},
	{id: "incontext-joint", name: "incontext", what: "joint-action DPT (Shi et al. 2024's centralized setting) against the plug-in posterior-Nash players, OMD and the average equilibrium (small scale)",
		args: []string{"-study", "joint"}},
	{name: "omdnet", what: "in-context-games-omd Theorem 4.1 made executable: the transformer with hand-set weights that runs OMD, its sizes and its distance to OMD in self-play (small scale)"},
	{name: "nonstationary", what: "nonstationary-transformers-master §5, Figures 3–7: MASTER, LinUCB, TS and a transformer on non-stationary bandits"},
	{id: "nonstationary-sizes", name: "nonstationary", what: "nonstationary-transformers-master §5: bandit transformers against model size and data, LinUCB and DPT labels (small scale)",
		args: []string{"-study", "sizes"}},
	{id: "nonstationary-posterior", name: "nonstationary", what: "bandit transformers on posterior-probability labels against LinUCB, MASTER and posterior sampling (small scale)",
		args: []string{"-study", "posterior"}},
	{name: "metalearn", what: "multi-agent-meta-rl §6, App. F: meta-learning against individual learning on similar Markov games"},
	{id: "metalearn-poker", name: "metalearn", what: "multi-agent-meta-rl App. F.3: the Poker endgame on a stand-in from public rules, warm-started OMD against uniform starts",
		args: []string{"-parts", "poker", "-pokerT", "100000"}},
	{name: "control", what: "optimal-control-transformer-training §6: Tables 1–2 and Figures 6–7, larger sweeps, and the DP against Adam with restarts",
		args: []string{"-compare", "0.5,2", "-compare-seeds", "3"}},
	{name: "transformerbench", what: "the transformer's training next to PyTorch, and its KV-cached play (needs torch)"},
}

// optional programs run only when selected with -only.
var optional = map[string]bool{"transformerbench": true}

type config struct {
	only  []string
	out   string
	fresh bool
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
	if err := run(ctx, c, root, goRun, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		if ctx.Err() != nil {
			os.Exit(130) // interrupted, as a shell reports SIGINT
		}
		os.Exit(1)
	}
}

func parseFlags(args []string) (config, error) {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	only := fs.String("only", "", "comma-separated subset of: "+names())
	var c config
	fs.StringVar(&c.out, "out", filepath.Join("out", "reproduce"), "output folder")
	fs.BoolVar(&c.fresh, "fresh", false, "run every selected program again from scratch (removing its folder and saved jobs), even those that finished before")
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

// moduleRoot returns the directory of the library module
// github.com/icrl-go/icrl: the main module, or one of the main modules of
// the repository's workspace (go.work), whose root is the repository's.
func moduleRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "list", "-m", "-f", "{{.Path}} {{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the module (run this inside a checkout of github.com/icrl-go/icrl): %w", err)
	}
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, dir, _ := strings.Cut(line, " ")
		if path == "github.com/icrl-go/icrl" {
			return dir, nil
		}
		paths = append(paths, path)
	}
	return "", fmt.Errorf("the current modules are %q, not github.com/icrl-go/icrl (run this from a checkout of the repository)", paths)
}

// done is what a finished program leaves in its folder, so that a later
// run keeps it (resumption) and its section stays in the report when
// other programs are rerun (-only).
type done struct {
	// Args are the flags it ran with; a program whose flags changed is
	// run again.
	Args []string
	// Code is the fingerprint of the sources it ran from (sourceHash); a
	// program is run again after the code changed.
	Code string
	// Section is its section of the report.
	Section string
	// Finished is when it finished.
	Finished time.Time
}

// doneFile is the name of a finished program's record in its folder.
const doneFile = "reproduce-done.json"

// loadDone returns the record of the program in dir if it finished with
// args from the sources of fingerprint code.
func loadDone(dir string, args []string, code string) (done, bool) {
	b, err := os.ReadFile(filepath.Join(dir, doneFile))
	if err != nil {
		return done{}, false
	}
	var d done
	if json.Unmarshal(b, &d) != nil || !slices.Equal(d.Args, args) || d.Code != code {
		return done{}, false
	}
	return d, true
}

// sourceHash returns a fingerprint of the sources the programs run from:
// the SHA-256 of every .go file, go.mod, go.sum and go.work below root
// (paths and contents, in lexical order), skipping hidden folders and the
// output folder out.
func sourceHash(root, out string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || path == out) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") && name != "go.mod" && name != "go.sum" && name != "go.work" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s\x00%d\x00", filepath.ToSlash(rel), len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("fingerprinting the sources: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// run runs the selected programs, skipping those that finished before with
// the same flags unless c.fresh (a program named by -only always runs),
// and writes the report: the sections of every program that has finished,
// in the report's order, whenever it ran. Progress goes to stderr; the
// report, the results, to stdout.
func run(ctx context.Context, c config, root string, rn runner, stdout, stderr io.Writer) error {
	out, err := filepath.Abs(c.out)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	code, err := sourceHash(root, out)
	if err != nil {
		return err
	}
	// The programs run in root; their -out is relative to it when the
	// output folder is below it, so that the report names no absolute
	// path.
	outArg := func(dir string) string {
		if rel, err := filepath.Rel(root, dir); err == nil && filepath.IsLocal(rel) {
			return rel
		}
		return dir
	}
	sections := map[string]string{} // by key: finished now or before
	var failed []string
	var stopped string // the program Ctrl-C interrupted
	total := time.Now()
	for _, p := range c.selected() {
		dir := filepath.Join(out, p.key())
		args := append([]string{"-out", outArg(dir)}, p.args...)
		if d, ok := loadDone(dir, args, code); ok && !c.fresh && !slices.Contains(c.only, p.key()) {
			sections[p.key()] = d.Section
			fmt.Fprintf(stderr, "reproduce: keeping %s, finished %s from the same sources (-fresh runs it again)\n", p.key(), d.Finished.Format("2006-01-02 15:04 UTC"))
			continue
		}
		// A program that runs again from a finished run, or under -fresh,
		// starts over: the studies resume their saved jobs from the
		// folder, which would keep results of older code. An interrupted
		// program (no record) resumes.
		_, finished := loadDone(dir, args, code)
		if c.fresh || finished || changedCode(dir, code) {
			if err := os.RemoveAll(dir); err != nil {
				return err
			}
		}
		fmt.Fprintf(stderr, "reproduce: running %s (%s)\n", p.key(), p.what)
		start := time.Now()
		printed, err := rn(ctx, root, p.name, args, stderr)
		el := time.Since(start).Round(time.Second)
		if err != nil {
			if ctx.Err() != nil {
				stopped = p.key()
				break
			}
			failed = append(failed, p.key())
			sections[p.key()] = fmt.Sprintf("## %s\n\n%s. **Failed** after %v: %v\n\n", p.key(), p.what, el, err)
			fmt.Fprintf(stderr, "reproduce: %s failed after %v: %v\n", p.key(), el, err)
			continue
		}
		fmt.Fprintf(stderr, "reproduce: %s done in %v\n", p.key(), el)
		sec := section(p, dir, el, printed)
		sections[p.key()] = sec
		b, err := json.Marshal(done{Args: args, Code: code, Section: sec, Finished: time.Now().UTC()})
		if err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, doneFile), b, 0o644); err != nil {
			return err
		}
	}
	// Sections of the programs not selected this time that finished before
	// (-only merges into the report).
	for _, p := range programs {
		if _, ok := sections[p.key()]; ok {
			continue
		}
		dir := filepath.Join(out, p.key())
		if d, ok := loadDone(dir, append([]string{"-out", outArg(dir)}, p.args...), code); ok {
			sections[p.key()] = d.Section
		}
	}
	var rep strings.Builder
	fmt.Fprintf(&rep, "# icrl: reproduction report\n\nWritten %s by `go run ./examples/reproduce`. Each section is one example program run at its quick scale, on the date it gives; its files are in the folder named after it. A program that finished is kept by later runs (`-fresh` runs every one again).\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	for _, p := range programs {
		if sec, ok := sections[p.key()]; ok {
			rep.WriteString(sec)
		}
	}
	if stopped != "" {
		fmt.Fprintf(&rep, "**Interrupted** during %s; running the same command again resumes from it.\n", stopped)
	} else {
		fmt.Fprintf(&rep, "This run took %v.\n", time.Since(total).Round(time.Second))
	}
	path := filepath.Join(out, "report.md")
	if err := os.WriteFile(path, []byte(rep.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "reproduce: report written to %s\n", path)
	if _, err := io.WriteString(stdout, rep.String()); err != nil {
		return err
	}
	if stopped != "" {
		return fmt.Errorf("%s: %w", stopped, ctx.Err())
	}
	if len(failed) > 0 {
		return errors.New("failed: " + strings.Join(failed, ", "))
	}
	return nil
}

// changedCode reports whether the program in dir finished from sources
// other than those of fingerprint code: its folder (saved study jobs
// included) is then stale and is removed before it runs again.
func changedCode(dir, code string) bool {
	b, err := os.ReadFile(filepath.Join(dir, doneFile))
	if err != nil {
		return false
	}
	var d done
	return json.Unmarshal(b, &d) == nil && d.Code != code
}

// section returns the report section of program p, finished in el with
// its files in dir and printed on its standard output.
func section(p program, dir string, el time.Duration, printed string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "## %s\n\n%s. Run %s, run time %v; files in `%s`.\n\n", p.key(), p.what, time.Now().UTC().Format("2006-01-02 15:04 UTC"), el, p.key())
	if files := listFiles(dir); len(files) > 0 {
		fmt.Fprintf(&b, "Files: %s.\n\n", strings.Join(files, ", "))
	}
	if s := strings.TrimSpace(settle(printed)); s != "" {
		if strings.Contains(s, "|---") { // the program prints Markdown tables
			fmt.Fprintf(&b, "%s\n\n", demoteHeadings(s))
		} else {
			fmt.Fprintf(&b, "```\n%s\n```\n\n", s)
		}
	}
	return b.String()
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
		if !e.IsDir() && e.Name() != doneFile {
			out = append(out, "`"+e.Name()+"`")
		}
	}
	return out
}
