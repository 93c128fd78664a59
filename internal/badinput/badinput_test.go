package badinput

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/gangconf/gangconf/bench"
	"github.com/gangconf/gangconf/reference-scheduler/mutants"
	"github.com/gangconf/gangconf/reports/bundle"
	"github.com/gangconf/gangconf/suites/framework"
	"github.com/gangconf/gangconf/suites/framework/cluster"
	"github.com/gangconf/gangconf/suites/framework/fakeapi"
	"github.com/gangconf/gangconf/suites/framework/harness"
	"github.com/gangconf/gangconf/suites/framework/preflight"
	"github.com/gangconf/gangconf/suites/framework/scheduler"
	"github.com/gangconf/gangconf/suites/framework/settings"
)

// root is the module's root, from this package's folder (go test runs a
// test in its package's folder).
const root = "../.."

// tableHeader starts the README's table of bad inputs.
const tableHeader = "| bad input | what the harness says"

// env is environment variables as make passes them.
type env map[string]string

// rejection is how the harness meets one row's input. Exactly one of its
// ways is set:
//   - env: the variables, on top of good kwok settings, that a run
//     (make conformance, cluster-up) reads and validates before anything
//     starts; with bench, as make bench reads them;
//   - run: the harness's own call with the input, for inputs that need
//     files, a process or a fake API server;
//   - pkg and test: a test of package pkg (a folder from the module root)
//     that feeds the input where only that package reaches; then each piece
//     of the row's message must be text of the package's code.
type rejection struct {
	env       env
	bench     bool
	run       func(*testing.T) error
	pkg, test string
}

// rejections are the README table's rows, by their input cell.
var rejections = map[string]rejection{
	"`SCHEDULER=volcano`":                           {env: env{"SCHEDULER": "volcano"}},
	"`CLUSTER=gpu-9k`":                              {env: env{"CLUSTER": "gpu-9k"}},
	"`PROVIDER=existing` without `KUBECONFIG`":      {env: env{"PROVIDER": "existing"}},
	"`SCHEDULER=external` without `SCHEDULER_NAME`": {env: env{"SCHEDULER": "external"}},
	"`SCHEDULER=reference SCHEDULER_NAME=mine`":     {env: env{"SCHEDULER_NAME": "mine"}},
	"`SCHEDULER_CMD='run {{.Kubeconfig'`": {env: env{"SCHEDULER": "command", "SCHEDULER_NAME": "mine",
		"SCHEDULER_CMD": "run {{.Kubeconfig"}},
	"`SCHEDULER=binary` without `SCHEDULER_BIN` or `SCHEDULER_CONFIG`": {env: env{"SCHEDULER": "binary"}},
	"`SCHEDULER_BIN` that is no executable":                            {run: schedulerBinIsNoExecutable},
	"`PROVIDER=kind` without `KIND_NODE_IMAGE`": {env: env{"PROVIDER": "kind", "SCHEDULER": "external",
		"SCHEDULER_NAME": "default-scheduler"}},
	"`PROVIDER=kind` without Docker":                     {run: kindWithoutDocker},
	"a `SCHEDULER_CMD` that exits at once":               {run: commandExitsAtOnce},
	"a `SCHEDULER_READY_URL` that never answers":         {run: readyURLNeverAnswers},
	"a `SCHEDULER_CMD` that never binds the probe pod":   {pkg: "suites/framework/harness", test: "TestProbeNotBoundSaysTheCommandIgnoresTheName"},
	"a `KUBECONFIG` that may not create PriorityClasses": {run: priorityClassesForbidden},
	"a cluster without the PodGroup API":                 {run: clusterWithoutTheAPI},
	// The check the suite's ReportBeforeSuite makes with Ginkgo's counts.
	"`LABEL_FILTER='area:quourm'`": {run: func(*testing.T) error { return settings.CheckLabelFilter("area:quourm", 0, 110) }},
	"`SCENARIO=nope`":              {env: env{"SCENARIO": "nope"}, bench: true},
	"`CLUSTER_MODE=upstream` with `make conformance`": {run: func(*testing.T) error {
		_, err := harness.UpRun(context.Background(), settings.Settings{Provider: "kwok", ClusterMode: cluster.ModeUpstream}, "r1", func(string, ...any) {})
		return err
	}},
	"`SIZES=8x`":          {env: env{"SCENARIO": "smoke", "SIZES": "8x"}, bench: true},
	"`ADMISSION=volcano`": {env: env{"ADMISSION": "volcano"}},
	"`ADMISSION=kueue PROVIDER=existing`": {run: func(t *testing.T) error {
		s := settingsOf(t, env{"PROVIDER": "existing", "KUBECONFIG": fakeapi.Kubeconfig(t), "ADMISSION": "kueue"})
		return s.Validate()
	}},
	"a Kueue that exits at start":                                 {pkg: "suites/framework/admission", test: "TestKueueThatExitsAtStartSaysSo"},
	"Kueue's CRDs that do not install":                            {pkg: "suites/framework/admission", test: "TestCRDsThatDoNotInstallSaySo"},
	"`MUTANTS=nope`":                                              {run: unknownMutant},
	"`PRODUCT` without `contact_email_address`":                   {run: productWithoutContact},
	"`SCHEDULER_RESTART_CMD` with a scheduler the harness starts": {env: env{"SCHEDULER_RESTART_CMD": "pkill kube-scheduler"}},
	"a `SCHEDULER_RESTART_CMD` that fails":                        {run: restartCommandFails},
	"a `SCHEDULER_NAME` nobody answers":                           {pkg: "suites/framework/harness", test: "TestNoSchedulerAnswersTheName"},
	"a `KUBECONFIG` without the rights the suite needs":           {run: kubeconfigWithoutRights},
}

// row is one row of the README's table.
type row struct {
	line    int
	input   string
	message string // the code span's text, … where it is cut
}

// readTable reads the rows of the README's table of bad inputs.
func readTable(t *testing.T) []row {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, tableHeader) {
			start = i
			break
		}
	}
	if start < 0 || start+1 >= len(lines) || !strings.HasPrefix(lines[start+1], "| ---") {
		t.Fatalf("README.md has no table starting %q", tableHeader)
	}
	var rows []row
	for i := start + 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(lines[i], "| "), " |"), " | ")
		if len(cells) != 2 {
			t.Fatalf("README.md:%d: want two cells, input and message: %s", i+1, lines[i])
		}
		msg := cells[1]
		if len(msg) < 2 || msg[0] != '`' || msg[len(msg)-1] != '`' || strings.Count(msg, "`") != 2 {
			t.Fatalf("README.md:%d: the message must be one code span, the message's text with … where it is cut: %s", i+1, msg)
		}
		rows = append(rows, row{line: i + 1, input: cells[0], message: msg[1 : len(msg)-1]})
	}
	return rows
}

func TestEveryBadInputOfTheREADMEIsRejectedWithItsMessage(t *testing.T) {
	rows := readTable(t)
	// Issue 41's bar for the table.
	if len(rows) < 15 {
		t.Errorf("README.md lists %d bad inputs, want at least 15", len(rows))
	}
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.input] {
			t.Errorf("README.md:%d: input %s listed twice", r.line, r.input)
		}
		seen[r.input] = true
		t.Run(r.input, func(t *testing.T) {
			rej, ok := rejections[r.input]
			if !ok {
				t.Fatalf("README.md:%d: no check for the input %s: add it to rejections", r.line, r.input)
			}
			if rej.test != "" {
				expectTestAndText(t, rej.pkg, rej.test, r.message)
				return
			}
			err := rej.answer(t)
			if err == nil {
				t.Fatalf("README.md:%d: %s was accepted", r.line, r.input)
			}
			// The first line is the message; a log's tail may follow.
			first, _, _ := strings.Cut(err.Error(), "\n")
			if !holdsInOrder(first, r.message) {
				t.Errorf("README.md:%d: the harness says\n\t%s\nnot the row's\n\t%s", r.line, first, r.message)
			}
		})
	}
	for input := range rejections {
		if !seen[input] {
			t.Errorf("rejections checks %s, which README.md's table does not list: list it or remove the check", input)
		}
	}
}

// holdsInOrder says whether the pieces of message cut by … occur in s in
// their order.
func holdsInOrder(s, message string) bool {
	for _, piece := range strings.Split(message, "…") {
		i := strings.Index(s, piece)
		if i < 0 {
			return false
		}
		s = s[i+len(piece):]
	}
	return true
}

// expectTestAndText checks that package pkg has the test that feeds the
// input, and that each piece of the message is text of the package's code.
func expectTestAndText(t *testing.T, pkg, test, message string) {
	t.Helper()
	dir := filepath.Join(root, pkg)
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Go files in %s: %v", pkg, err)
	}
	var code strings.Builder
	found := false
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			code.Write(data)
			continue
		}
		parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range parsed.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == test {
				found = true
			}
		}
	}
	if !found {
		t.Errorf("%s has no test %s", pkg, test)
	}
	for _, piece := range strings.Split(message, "…") {
		if !strings.Contains(code.String(), piece) {
			t.Errorf("the code of %s does not say %q", pkg, piece)
		}
	}
}

// answer is the harness's answer to the rejection's input.
func (r rejection) answer(t *testing.T) error {
	t.Helper()
	if r.run != nil {
		return r.run(t)
	}
	s := settingsOf(t, r.env)
	if r.bench {
		// As make bench: the plan first, then the settings.
		if _, err := bench.ReadPlan(&s); err != nil {
			return err
		}
	}
	return s.Validate()
}

// settingsOf sets the environment make passes, good kwok settings with
// vars on top (every other variable unset), and reads it as a run does.
func settingsOf(t *testing.T, vars env) settings.Settings {
	t.Helper()
	all := env{
		settings.EnvProvider: "kwok", settings.EnvCluster: "ci-small", settings.EnvScheduler: "reference",
		settings.EnvBinDir: binDir(t), settings.EnvWorkDir: t.TempDir(), settings.EnvResults: t.TempDir(),
	}
	for _, k := range []string{settings.EnvSchedulerName, settings.EnvKubeconfig, settings.EnvClusterName,
		settings.EnvSchedulerCmd, settings.EnvSchedulerURL, settings.EnvSchedulerBin, settings.EnvSchedulerConf,
		settings.EnvSchedulerArgs, settings.EnvKindNodeImage, settings.EnvRestartCmd, settings.EnvAdmission, "SCENARIO", "SIZES", "REPEATS", "BESIDE"} {
		all[k] = ""
	}
	for k, v := range vars {
		all[k] = v
	}
	for k, v := range all {
		t.Setenv(k, v)
	}
	return settings.FromEnv()
}

// binDir is a folder with every binary a kwok run looks for, as empty
// executables: the settings check presence, not contents.
func binDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range append(slices.Clone(cluster.Binaries), "reference-scheduler") {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// writeFile writes text to a file of its own and returns its path.
func writeFile(t *testing.T, name, text string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

const schedulerConfig = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: mine\n"

// schedulerBinIsNoExecutable: a file that is not executable.
func schedulerBinIsNoExecutable(t *testing.T) error {
	s := settingsOf(t, env{"SCHEDULER": "binary", "SCHEDULER_BIN": writeFile(t, "kube-scheduler", "", 0o644),
		"SCHEDULER_CONFIG": writeFile(t, "config.yaml", schedulerConfig, 0o644)})
	return s.Validate()
}

// kindWithoutDocker: no docker on PATH; Up stops before kind creates anything.
func kindWithoutDocker(t *testing.T) error {
	s := settingsOf(t, env{"PROVIDER": "kind", "KIND_NODE_IMAGE": "example.test/kind-node:v1.37.2",
		"SCHEDULER": "external", "SCHEDULER_NAME": "default-scheduler"})
	t.Setenv("PATH", t.TempDir())
	return up(t, s, time.Minute)
}

// commandUp starts SCHEDULER=command with line and a readiness URL where
// nothing listens, on a cluster where nothing answers (the wait for the
// scheduler comes before any call to the cluster), for at most wait.
func commandUp(t *testing.T, line string, wait time.Duration) error {
	port, err := scheduler.FreePort(0)
	if err != nil {
		t.Fatal(err)
	}
	s := settingsOf(t, env{"PROVIDER": "existing", "KUBECONFIG": fakeapi.Kubeconfig(t), "SCHEDULER": "command",
		"SCHEDULER_NAME": "mine", "SCHEDULER_CMD": line, "SCHEDULER_READY_URL": fmt.Sprintf("http://127.0.0.1:%d/readyz", port)})
	return up(t, s, wait)
}

func commandExitsAtOnce(t *testing.T) error {
	return commandUp(t, "echo 'unknown flag: --name'; exit 2", time.Minute)
}

// readyURLNeverAnswers: the harness waits a minute; the test gives it 2 s,
// a deadline the harness reports as its own minute.
func readyURLNeverAnswers(t *testing.T) error {
	return commandUp(t, "exec sleep 600", 2*time.Second)
}

// up runs the harness's Up for at most wait; it must fail, and so leave
// nothing running.
func up(t *testing.T, s settings.Settings, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	e, err := harness.Up(ctx, s, false, t.Logf)
	if err == nil {
		_ = e.Down()
		t.Fatal("Up succeeded")
	}
	return err
}

func priorityClassesForbidden(*testing.T) error {
	cs := fakeapi.New()
	cs.PrependReactor("create", "priorityclasses", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"},
			"gangconf-low", fmt.Errorf(`User "vendor" cannot create resource "priorityclasses" at the cluster scope`))
	})
	_, err := framework.EnsurePriorityClasses(context.Background(), cs)
	return err
}

// clusterWithoutTheAPI is a v1.37.2 cluster whose API server serves no
// scheduling.k8s.io/v1beta1 and drops pods' spec.schedulingGroup, as one
// without GenericWorkload does.
func clusterWithoutTheAPI(*testing.T) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: metav1.NamespaceDefault}}
	cs := fakeapi.New(sa)
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.37.2"}
	cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		a.(k8stesting.CreateAction).GetObject().(*corev1.Pod).Spec.SchedulingGroup = nil
		return false, nil, nil
	})
	p, err := preflight.Run(context.Background(), cs, true)
	if err != nil {
		return err
	}
	return p.Err()
}

// restartCommandFails: an external scheduler's restart command that fails,
// as a fault spec runs it after Up (which, for external, starts nothing).
func restartCommandFails(t *testing.T) error {
	s := settingsOf(t, env{"PROVIDER": "existing", "KUBECONFIG": fakeapi.Kubeconfig(t), "SCHEDULER": "external",
		"SCHEDULER_NAME": "mine", "SCHEDULER_RESTART_CMD": "echo 'error: no pods found with component=mine' >&2; exit 1"})
	e, err := harness.Up(context.Background(), s, false, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = e.Down() }()
	return e.CrashScheduler(context.Background())
}

// kubeconfigWithoutRights: a user who may not create nodes, on a cluster
// that serves the PodGroup API.
func kubeconfigWithoutRights(*testing.T) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: metav1.NamespaceDefault}}
	cs := fakeapi.New(sa)
	d := cs.Discovery().(*fakediscovery.FakeDiscovery)
	d.FakedServerVersion = &version.Info{GitVersion: "v1.37.2"}
	d.Resources = []*metav1.APIResourceList{{GroupVersion: "scheduling.k8s.io/v1beta1",
		APIResources: []metav1.APIResource{{Name: "workloads"}, {Name: "podgroups"}}}}
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
		r.Status.Allowed = r.Spec.ResourceAttributes.Resource != "nodes" || r.Spec.ResourceAttributes.Verb != "create"
		return true, r, nil
	})
	p, err := preflight.Run(context.Background(), cs, true)
	if err != nil {
		return err
	}
	return p.Err()
}

// unknownMutant reads MUTANTS as make mutants does.
func unknownMutant(t *testing.T) error {
	t.Setenv("MUTANTS", "nope")
	cat, err := mutants.Load(filepath.Join(root, "reference-scheduler", "mutants.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cat.Select(os.Getenv("MUTANTS"))
	return err
}

// productWithoutContact bundles a results directory with a PRODUCT.yaml
// that lacks its contact.
func productWithoutContact(t *testing.T) error {
	product := writeFile(t, "PRODUCT.yaml", "vendor: Example Corp\nname: example-scheduler\nversion: v1.2.3\n"+
		"website_url: https://example.com\ndocumentation_url: https://example.com/docs\n", 0o644)
	t.Setenv("PRODUCT", product)
	results := filepath.Join(t.TempDir(), "results")
	if err := os.MkdirAll(results, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(results, "junit_01.xml"), []byte("<testsuites/>"), 0o644); err != nil {
		t.Fatal(err)
	}
	return bundle.Make(results, os.Getenv("PRODUCT"), results+".tar.gz")
}
