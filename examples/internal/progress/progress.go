// Package progress shows the progress of an example program's long run as
// one live line on standard error, rewritten in place, when standard error
// is a terminal. Otherwise (a file, a pipe, a CI log) it writes one plain
// line per finished job ([Line.Done]) and nothing for the updates between
// them. Results belong on standard output or in files.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// Line is a live progress line. Its methods are safe for concurrent use.
// The zero value shows nothing.
type Line struct {
	mu    sync.Mutex
	w     io.Writer // the live line's terminal
	plain io.Writer // where finished jobs go as plain lines, when not live
	last  int       // runes of the line shown, to blank its rest
}

// Stderr returns a live Line on os.Stderr if it is a terminal (a
// character device), and otherwise one that writes only the finished jobs
// to os.Stderr, a plain line each.
func Stderr() *Line {
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		return &Line{w: os.Stderr}
	}
	return &Line{plain: os.Stderr}
}

// To returns a live Line that writes to w (nil: silent); tests use it.
func To(w io.Writer) *Line { return &Line{w: w} }

// Plain returns a Line that writes only the finished jobs to w, a plain
// line each, as Stderr does when standard error is not a terminal.
func Plain(w io.Writer) *Line { return &Line{plain: w} }

// Done reports a finished job: on a live line as [Line.Update] does, and
// otherwise as one plain line.
func (l *Line) Done(format string, args ...any) {
	if l == nil {
		return
	}
	if l.Live() {
		l.Update(format, args...)
		return
	}
	if l.plain == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.plain, format+"\n", args...)
}

// Live reports whether the line is shown.
func (l *Line) Live() bool { return l != nil && l.w != nil }

// Update replaces the line with the formatted text.
func (l *Line) Update(format string, args ...any) {
	if !l.Live() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s := fmt.Sprintf(format, args...)
	n := utf8.RuneCountInString(s)
	fmt.Fprintf(l.w, "\r%s%s", s, strings.Repeat(" ", max(l.last-n, 0)))
	l.last = n
}

// Clear blanks the line and returns the cursor to its start, so that
// other output starts on a clean line.
func (l *Line) Clear() {
	if !l.Live() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last > 0 {
		fmt.Fprintf(l.w, "\r%s\r", strings.Repeat(" ", l.last))
		l.last = 0
	}
}
