// Command torchbridge runs the library's PyTorch workflow end to end on a
// small bandit problem: collect LinUCB-labelled trajectories in Go, export
// them as a dataset file, train a transformer on it with PyTorch
// (train.py, beside this file), import the weights into Go, and play the
// imported model as an in-context bandit learner next to LinUCB.
//
// Usage:
//
//	go run ./examples/torchbridge [flags] export   # write OUT/data.safetensors
//	go run ./examples/torchbridge [flags] eval     # play OUT/weights.safetensors
//	go run ./examples/torchbridge [flags] run      # export, python3 train.py, eval
//
// The bandit is the non-stationary paper's low-variation linear bandit
// (nonstationary-transformers-master §4.2, without its reward windows) in
// d dimensions with a fixed set of A arms drawn per instance, over T
// rounds; the labels are LinUCB's arms (LinUCB acting), as the paper's
// transformer imitates. The evaluation is the mean final regret over
// -runs fresh instances. The PyTorch step needs python3 with torch and
// numpy (Debian: apt-get install python3-torch); on several GPUs it runs
// with torchrun (see train.py).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"

	"github.com/icrl-go/icrl/learner/bandit"
	"github.com/icrl-go/icrl/learner/incontext"
	"github.com/icrl-go/icrl/nonstationary"
	"github.com/icrl-go/icrl/transformer"
	"github.com/icrl-go/icrl/transformer/dataset"
	"github.com/icrl-go/icrl/transformer/safetensors"
)

type config struct {
	out                    string
	d, arms, T, traj, runs int
	seed                   uint64
	python, script         string
	steps, layers, width   int
	heads                  int
	gpt2                   bool
	shard                  int
	stdout                 io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "torchbridge:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("torchbridge", flag.ContinueOnError)
	var c config
	fs.StringVar(&c.out, "out", "out/torchbridge", "folder for the dataset, the weights and the results")
	fs.IntVar(&c.d, "d", 8, "dimension of the linear bandit")
	fs.IntVar(&c.arms, "arms", 5, "arms per instance")
	fs.IntVar(&c.T, "T", 100, "rounds per trajectory and per evaluation run")
	fs.IntVar(&c.traj, "traj", 400, "training trajectories")
	fs.IntVar(&c.runs, "runs", 20, "evaluation runs (fresh instances)")
	seed := fs.Uint64("seed", 1, "seed of the data (the evaluation uses seed+1)")
	fs.StringVar(&c.python, "python", "/usr/bin/python3", "Python interpreter with torch and numpy (Debian's python3-torch)")
	fs.StringVar(&c.script, "script", filepath.Join("examples", "torchbridge", "train.py"), "the PyTorch training script")
	fs.IntVar(&c.steps, "steps", 400, "PyTorch optimiser steps (batch 16)")
	fs.IntVar(&c.layers, "layers", 2, "transformer layers")
	fs.IntVar(&c.width, "width", 64, "transformer width")
	fs.IntVar(&c.heads, "heads", 4, "attention heads")
	fs.BoolVar(&c.gpt2, "gpt2", false, "train and import the GPT-2 layout instead of the torch one")
	fs.IntVar(&c.shard, "shard", 0, "write the dataset in shards of this many trajectories (0: one file)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c.seed, c.stdout = *seed, stdout
	if fs.NArg() != 1 {
		return errors.New("give one command: export, eval or run")
	}
	if c.d < 1 || c.arms < 2 || c.T < 2 || c.traj < 1 || c.runs < 1 || c.steps < 1 {
		return fmt.Errorf("bad sizes: -d %d -arms %d -T %d -traj %d -runs %d -steps %d", c.d, c.arms, c.T, c.traj, c.runs, c.steps)
	}
	if err := os.MkdirAll(c.out, 0o755); err != nil {
		return err
	}
	switch fs.Arg(0) {
	case "export":
		_, err := export(ctx, c)
		return err
	case "eval":
		return evaluate(ctx, c)
	case "run":
		data, err := export(ctx, c)
		if err != nil {
			return err
		}
		if err := trainTorch(ctx, c, data); err != nil {
			return err
		}
		return evaluate(ctx, c)
	}
	return fmt.Errorf("unknown command %q: export, eval or run", fs.Arg(0))
}

// env returns the generator of bandit instances.
func env(c config) func(*rand.Rand) (nonstationary.Env, error) {
	return func(rng *rand.Rand) (nonstationary.Env, error) {
		w, acts := nonstationary.SampleLBMInstance(c.d, c.arms, rng)
		set, err := nonstationary.FixedActions(acts)
		if err != nil {
			return nil, err
		}
		lc := nonstationary.PaperLowConfig(w, set)
		lc.Horizon, lc.Windows = c.T, nil
		return nonstationary.NewLowNonStationary(lc)
	}
}

func linucb(c config) bandit.Factory {
	return func() (bandit.Learner, error) { return bandit.NewLinUCB(bandit.LinUCBConfig{Dim: c.d}) }
}

func encoder(c config) incontext.BanditEncoder {
	return incontext.BanditEncoder{Dim: c.d, Arms: c.arms}
}

// export collects the trajectories and writes the dataset; it returns the
// path train.py reads (the file, or the shards' index).
func export(ctx context.Context, c config) (string, error) {
	t0 := time.Now()
	trajs, err := incontext.CollectBandits(ctx, env(c), nil, linucb(c), c.traj, c.seed)
	if err != nil {
		return "", err
	}
	exs, err := incontext.Examples[float32](trajs, encoder(c), true, rand.New(rand.NewPCG(c.seed, 2)))
	if err != nil {
		return "", err
	}
	meta := dataset.Meta{Width: encoder(c).Width(), Outputs: c.arms, Seed: c.seed,
		Generator: "examples/torchbridge export: LinUCB-labelled trajectories of the low-variation linear bandit",
		Params:    map[string]string{"d": strconv.Itoa(c.d), "arms": strconv.Itoa(c.arms), "T": strconv.Itoa(c.T), "trajectories": strconv.Itoa(c.traj)}}
	path := filepath.Join(c.out, "data.safetensors")
	if c.shard > 0 {
		w, err := dataset.NewShardWriter[float32](c.out, "data", meta, c.shard)
		if err != nil {
			return "", err
		}
		if err := w.Add(exs...); err != nil {
			return "", err
		}
		if _, err := w.Close(); err != nil {
			return "", err
		}
		path = filepath.Join(c.out, "data.json")
	} else if err := dataset.WriteFile(path, exs, meta); err != nil {
		return "", err
	}
	fmt.Fprintf(c.stdout, "exported %d trajectories of %d rounds (%d positions each, width %d) to %s in %s\n",
		len(exs), c.T, len(exs[0].Target.Labels), meta.Width, path, time.Since(t0).Round(time.Millisecond))
	return path, nil
}

// trainTorch runs train.py on the dataset.
func trainTorch(ctx context.Context, c config, data string) error {
	args := []string{c.script, "train", data, filepath.Join(c.out, "weights.safetensors"),
		"--layers", strconv.Itoa(c.layers), "--heads", strconv.Itoa(c.heads), "--width", strconv.Itoa(c.width),
		"--ff", strconv.Itoa(4 * c.width), "--max-len", strconv.Itoa(2*c.T + 1), "--steps", strconv.Itoa(c.steps),
		"--seed", strconv.FormatUint(c.seed, 10)}
	if c.gpt2 {
		args = append(args, "--gpt2")
	}
	cmd := exec.CommandContext(ctx, c.python, args...)
	cmd.Stdout, cmd.Stderr = c.stdout, os.Stderr
	fmt.Fprintf(c.stdout, "%s %v\n", c.python, args)
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s train.py: %w", c.python, err)
	}
	fmt.Fprintf(c.stdout, "PyTorch training took %s\n", time.Since(t0).Round(time.Second))
	return nil
}

// evaluate imports the weights and plays the model next to LinUCB.
func evaluate(ctx context.Context, c config) error {
	f, err := safetensors.ReadFile(filepath.Join(c.out, "weights.safetensors"))
	if err != nil {
		return err
	}
	layout := transformer.TorchLayout
	if f.Metadata["layout"] == transformer.GPT2Layout.String() {
		layout = transformer.GPT2Layout
	}
	m, err := transformer.Import[float32](f, layout, transformer.Config{})
	if err != nil {
		return err
	}
	tf, err := incontext.BanditFactory(m, encoder(c), incontext.Config{})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "imported %s (%s layout, %d layers, width %d)\n", f.Metadata["generator"], layout, m.Config().Layers, m.Config().Width)
	fmt.Fprintf(c.stdout, "\nFinal regret after %d rounds, mean ± std over %d fresh instances (seed %d):\n\n| learner | regret |\n|---|---|\n", c.T, c.runs, c.seed+1)
	for _, l := range []struct {
		name string
		f    bandit.Factory
	}{{"LinUCB", linucb(c)}, {"transformer (trained in PyTorch)", tf}} {
		s, err := nonstationary.MonteCarlo(ctx, env(c), l.f, c.runs, c.seed+1)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "| %s | %.2f ± %.2f |\n", l.name, s.FinalMean, s.FinalStd)
	}
	return nil
}
