package conformance

import (
	"context"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/gangconf/gangconf/suites/framework"
)

// Serial specs run on the first process after every parallel spec is done,
// so this one sees the whole run.
var _ = ginkgo.Describe("Invariant", ginkgo.Serial, ginkgo.Label("profile:core", "area:invariant", "item:15"), func() {
	ginkgo.It("no gang stayed partially bound during the run (quiet window 5s)", func(ctx context.Context) {
		gomega.Expect(invariants).NotTo(gomega.BeNil(), "the invariant monitor runs on the first process")
		violations := invariants.WaitQuiet(ctx)
		var report []string
		for _, v := range violations {
			report = append(report, v.String())
		}
		ginkgo.GinkgoWriter.Printf("invariant monitor: %d gangs watched, quiet window %s\n", invariants.Gangs(), framework.QuietWindow)
		gomega.Expect(violations).To(gomega.BeEmpty(), "gangs left partially bound (0 < bound < minCount):\n%s", strings.Join(report, "\n"))
	})
})
