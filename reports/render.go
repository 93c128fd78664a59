package reports

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"
)

//go:embed templates/*.tmpl
var templates embed.FS

// oneDecimal is how the report writes milliseconds and rates.
func oneDecimal(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

// rate is a throughput, "-" for none: a concurrent workload bound within its
// first second of binds has no sample, as upstream's would not.
func rate(v float64) string {
	if v == 0 {
		return "-"
	}
	return oneDecimal(v)
}

var funcs = map[string]any{
	"ms":   oneDecimal,
	"rate": rate,
	// times is a ratio, "-" for none: two decimals, or below 0.1 two
	// significant digits, so that 4.8 ms over 2048 reads 0.0023, not 0.00.
	"times": func(v float64) string {
		switch {
		case v == 0:
			return "-"
		case v < 0.1:
			return strconv.FormatFloat(v, 'g', 2, 64)
		}
		return strconv.FormatFloat(v, 'f', 2, 64)
	},
	// secs is a duration in seconds, one decimal.
	"secs":      func(d time.Duration) string { return oneDecimal(d.Seconds()) },
	"memGiB":    func(kb int64) string { return strconv.FormatFloat(float64(kb)/(1<<20), 'f', 1, 64) },
	"firstLine": firstLine,
	// pct is a percentage, one decimal.
	"pct":  oneDecimal,
	"join": strings.Join,
	// plural counts things: "1 spec", "2 specs".
	"plural": func(n int, thing string) string {
		if n == 1 {
			return "1 " + thing
		}
		return strconv.Itoa(n) + " " + thing + "s"
	},
	// rest counts a list's items after its first.
	"rest": func(l []string) int { return max(len(l)-1, 0) },
	// apiServer lists a kwok API server's extra environment (NAME=value)
	// and flags (--name=value), each sorted; "" when it has none.
	"apiServer": func(env, args map[string]string) string {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(env)) {
			kv = append(kv, k+"="+env[k])
		}
		for _, k := range slices.Sorted(maps.Keys(args)) {
			kv = append(kv, "--"+k+"="+args[k])
		}
		return strings.Join(kv, " ")
	},
	// cell keeps a value inside one Markdown table cell.
	"cell": func(s string) string {
		return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
	},
	// svg inlines a plot the harness drew itself (gonum output, not user input).
	"svg": func(s string) htmltemplate.HTML { return htmltemplate.HTML(s) },
}

// parseHTML and parseText parse a report's template, named for its file in
// templates/, with the functions above; HTML templates get the shared style.
func parseHTML(name string) *htmltemplate.Template {
	return htmltemplate.Must(htmltemplate.New(name).Funcs(funcs).ParseFS(templates, "templates/"+name, "templates/style.html.tmpl"))
}

func parseText(name string) *texttemplate.Template {
	return texttemplate.Must(texttemplate.New(name).Funcs(funcs).ParseFS(templates, "templates/"+name))
}

var (
	htmlTmpl       = parseHTML("report.html.tmpl")
	mdTmpl         = parseText("report.md.tmpl")
	matrixHTMLTmpl = parseHTML("matrix.html.tmpl")
	matrixMDTmpl   = parseText("matrix.md.tmpl")
)

// executor is an HTML or a text template.
type executor interface {
	Execute(w io.Writer, data any) error
}

func render(t executor, data any) ([]byte, error) {
	var b bytes.Buffer
	err := t.Execute(&b, data)
	return b.Bytes(), err
}

// HTML renders the self-contained HTML report.
func (m *Model) HTML() ([]byte, error) { return render(htmlTmpl, m) }

// Markdown renders the GitHub-flavoured Markdown report.
func (m *Model) Markdown() ([]byte, error) { return render(mdTmpl, m) }

// Write renders both reports into dir and returns the HTML report's path.
func (m *Model) Write(dir string) (string, error) {
	return writeBoth(dir, "report", m.HTML, m.Markdown)
}

// HTML renders the self-contained HTML matrix report.
func (x *Matrix) HTML() ([]byte, error) { return render(matrixHTMLTmpl, x) }

// Markdown renders the GitHub-flavoured Markdown matrix report.
func (x *Matrix) Markdown() ([]byte, error) { return render(matrixMDTmpl, x) }

// Write renders both matrix reports into dir, matrix.html and matrix.md,
// and returns the HTML report's path.
func (x *Matrix) Write(dir string) (string, error) {
	return writeBoth(dir, "matrix", x.HTML, x.Markdown)
}

// writeBoth writes name.html and name.md into dir, each from its renderer,
// and returns the HTML file's path.
func writeBoth(dir, name string, html, markdown func() ([]byte, error)) (string, error) {
	page, err := html()
	if err != nil {
		return "", err
	}
	md, err := markdown()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".md"), md, 0o644); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".html")
	return path, os.WriteFile(path, page, 0o644)
}
