package sweep

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
)

// WriteCSV writes a header and rows to path.
func WriteCSV(path string, header []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(header)
	w.WriteAll(rows) // flushes
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Main is the main function of an example program with studies: parse
// reads the command line (os.Args[1:]) and returns the study to run, which
// then runs until it ends or Ctrl-C cancels it. A cancelled study has
// written the results of its finished jobs; the program says so and exits
// with status 130. Any other error is printed with the program's name and
// exits with status 1; -h exits with status 0.
func Main(name string, parse func(args []string) (func(context.Context) error, error)) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	job, err := parse(os.Args[1:])
	if err == nil {
		err = job(ctx)
	}
	switch {
	case err == nil:
		return
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case Cancelled(err):
		fmt.Fprintf(os.Stderr, "%s: interrupted; the results of the finished runs are written (run the same command again to go on)\n", name)
		os.Exit(130)
	}
	fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
	os.Exit(1)
}

// Profiled returns study wrapped in a CPU profile written to path (see
// runtime/pprof; `go tool pprof` reads it); an empty path returns study
// unchanged.
func Profiled(path string, study func(context.Context) error) func(context.Context) error {
	if path == "" {
		return study
	}
	return func(ctx context.Context) error {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		err = study(ctx)
		pprof.StopCPUProfile()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}
