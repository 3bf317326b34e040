// Package singleton starts a test binary again as an MPI singleton, outside
// the job of the running test: the tests of mpiconduit and its binding use
// it to see how MPI behaves under other settings (MCA parameters) than
// the job's.
package singleton

import (
	"os"
	"os/exec"
	"strings"
)

// Command runs this test binary with args as a new MPI singleton, with the
// environment of this process less what mpirun set for its ranks (so that
// the child does not join this job), plus env ("KEY=value").
func Command(args []string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OMPI_") && !strings.HasPrefix(kv, "PMIX_") &&
			!strings.HasPrefix(kv, "ORTE_") && !strings.HasPrefix(kv, "OPAL_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	return cmd
}
