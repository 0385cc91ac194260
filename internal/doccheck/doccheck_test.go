package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the module's root, two levels up.
const root = "../.."

// goFiles returns the module's Go files (tests included), skipping
// testdata and hidden folders.
func goFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 100 {
		t.Fatalf("found only %d Go files under %s", len(files), root)
	}
	return files
}

// outside matches citations of documents a reader of the module cannot
// follow: the project's internal design notes, by section, by resolution
// number or by path. The pattern is spelled with character classes so that
// this file does not match it itself.
var outside = regexp.MustCompile(`spe[c] §|spe[c] [AEGT][0-9]|resolutio[n] [A-Z][0-9]|shared/spec[s]|the spe[c]'s`)

func TestNoOutsideCitations(t *testing.T) {
	for _, f := range goFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if outside.MatchString(line) {
				t.Errorf("%s:%d cites a document outside the module: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// libraryPackages are the packages whose doc must list errors and
// references.
var libraryPackages = []string{
	"game", "markov", "learner", "learner/incontext", "transformer",
	"transformer/safetensors", "transformer/dataset", "nonstationary",
	"metalearn", "quantize", "control",
}

func TestPackageDocSections(t *testing.T) {
	for _, p := range libraryPackages {
		b, err := os.ReadFile(filepath.Join(root, p, "doc.go"))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		doc := string(b)
		for _, h := range []string{"// # Errors", "// # References"} {
			if !strings.Contains(doc, h+"\n") {
				t.Errorf("%s/doc.go has no %q section", p, strings.TrimPrefix(h, "// # "))
			}
		}
		refs := doc[strings.Index(doc, "// # References"):]
		if !regexp.MustCompile(`arXiv|OpenReview|https://`).MatchString(refs) {
			t.Errorf("%s/doc.go: its references give no arXiv, OpenReview or web identifier", p)
		}
	}
}

func TestFunctionLength(t *testing.T) {
	const limit = 120
	fset := token.NewFileSet()
	for _, f := range goFiles(t) {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			var body *ast.BlockStmt
			name := "a function literal"
			switch x := n.(type) {
			case *ast.FuncDecl:
				body, name = x.Body, x.Name.Name
			case *ast.FuncLit:
				body = x.Body
			}
			if body != nil {
				if l := fset.Position(body.End()).Line - fset.Position(n.Pos()).Line + 1; l > limit {
					t.Errorf("%s: %s is %d lines long, more than %d: split it into named steps", fset.Position(n.Pos()), name, l, limit)
				}
			}
			return true
		})
	}
}
