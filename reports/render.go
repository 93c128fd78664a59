package reports

import (
	"bytes"
	"embed"
	htmltemplate "html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	texttemplate "text/template"
)

//go:embed templates/*.tmpl
var templates embed.FS

// oneDecimal is how the report writes milliseconds and rates.
func oneDecimal(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

var funcs = map[string]any{
	"ms": oneDecimal,
	// rate is a throughput, "-" for none: a concurrent workload bound within
	// its first second of binds has no sample, as upstream's would not.
	"rate": func(v float64) string {
		if v == 0 {
			return "-"
		}
		return oneDecimal(v)
	},
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

var (
	htmlTmpl = htmltemplate.Must(htmltemplate.New("report.html.tmpl").Funcs(funcs).ParseFS(templates, "templates/report.html.tmpl"))
	mdTmpl   = texttemplate.Must(texttemplate.New("report.md.tmpl").Funcs(funcs).ParseFS(templates, "templates/report.md.tmpl"))
)

// HTML renders the self-contained HTML report.
func (m *Model) HTML() ([]byte, error) {
	var b bytes.Buffer
	err := htmlTmpl.Execute(&b, m)
	return b.Bytes(), err
}

// Markdown renders the GitHub-flavoured Markdown report.
func (m *Model) Markdown() ([]byte, error) {
	var b bytes.Buffer
	err := mdTmpl.Execute(&b, m)
	return b.Bytes(), err
}

// Write renders both reports into dir and returns the HTML report's path.
func (m *Model) Write(dir string) (string, error) {
	html, err := m.HTML()
	if err != nil {
		return "", err
	}
	md, err := m.Markdown()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), md, 0o644); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "report.html")
	return path, os.WriteFile(path, html, 0o644)
}
