package toolchain

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// DefaultOptLevel is the LLVM optimization level of a pipeline without an
// @opt-level directive.
const DefaultOptLevel = 3

// Pipeline is one named pass pipeline from the pipelines file.
type Pipeline struct {
	// Name is the pipeline's name, such as "host" or "host-O0".
	Name string
	// OptLevel is the LLVM optimization level (0 to 3) for opt, llc and
	// mlir-runner.
	OptLevel int
	// Verify asks for extra checking: mlir-opt --verify-each and
	// --verify-roundtrip, opt --verify-each, llc --verify-machineinstrs.
	Verify bool
	// Steps are the passes and schedules, in order.
	Steps []Step
}

// Step is one step of a pipeline: a pass or a schedule.
type Step struct {
	// Pass is one pipeline element in mlir-opt's textual syntax, anchored
	// on builtin.module; empty for a schedule.
	Pass string
	// Schedule names a transform-dialect schedule (see [Schedules]) run at
	// this point with the transform interpreter; empty for a pass.
	Schedule string
}

// String returns the step as the pipelines file writes it.
func (s Step) String() string {
	if s.Schedule != "" {
		return "@schedule " + s.Schedule
	}
	return s.Pass
}

// Passes returns the pass steps, in order.
func (p Pipeline) Passes() []string {
	var passes []string
	for _, s := range p.Steps {
		if s.Pass != "" {
			passes = append(passes, s.Pass)
		}
	}
	return passes
}

// Schedules returns the schedule steps' names, in order.
func (p Pipeline) Schedules() []string {
	var names []string
	for _, s := range p.Steps {
		if s.Schedule != "" {
			names = append(names, s.Schedule)
		}
	}
	return names
}

// Pipelines is the parsed pipelines file, in file order.
type Pipelines []Pipeline

// Lookup returns the pipeline with the given name.
func (ps Pipelines) Lookup(name string) (Pipeline, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p, true
		}
	}
	return Pipeline{}, false
}

// Names returns the pipeline names in file order.
func (ps Pipelines) Names() []string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return names
}

var (
	pipelineNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:+-]*$`)
	passNameRE     = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.-]*`)
)

// ParsePipelines parses a pipelines file. The syntax is line based:
//
//	# A comment runs from # to the end of the line; blank lines are ignored.
//	pipeline host:                  # starts the pipeline named host
//	    @opt-level 3                # LLVM optimization level, 0 to 3 (default 3)
//	    @verify                     # extra verification in every tool
//	    @schedule contraction       # run a transform schedule at this point
//	    linalg-fuse-elementwise-ops # one pass per line, mlir-opt syntax
//	    one-shot-bufferize{bufferize-function-boundaries=true}
//	    func.func(convert-linalg-to-loops)
//
// A pipeline runs from its `pipeline NAME:` line to the next one. Each other
// line is a directive (starting with @) or one element of an mlir-opt pass
// pipeline anchored on builtin.module: a pass with optional {options}, or
// an op name with a nested pipeline in parentheses. An element may not
// contain a top-level comma or space (write one pass per line). @opt-level
// and @verify apply to the whole pipeline and come before its steps;
// @schedule NAME is a step, placed among the passes. Names are unique; a
// pipeline needs at least one step. Errors name the line.
func ParsePipelines(text string) (Pipelines, error) {
	var ps Pipelines
	var cur *Pipeline
	seen := make(map[string]int)
	finish := func() error {
		if cur != nil && len(cur.Steps) == 0 {
			return fmt.Errorf("line %d: pipeline %s has no steps", seen[cur.Name], cur.Name)
		}
		return nil
	}
	for i, raw := range strings.Split(text, "\n") {
		lineNo := i + 1
		line := raw
		if j := strings.IndexByte(line, '#'); j >= 0 {
			line = line[:j]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "pipeline "); ok || line == "pipeline" {
			name, ok := strings.CutSuffix(strings.TrimSpace(rest), ":")
			name = strings.TrimSpace(name)
			if !ok || !pipelineNameRE.MatchString(name) {
				return nil, fmt.Errorf("line %d: want `pipeline NAME:` with NAME made of letters, digits and _.:+-, got %q", lineNo, line)
			}
			if prev, dup := seen[name]; dup {
				return nil, fmt.Errorf("line %d: pipeline %s already defined at line %d", lineNo, name, prev)
			}
			if err := finish(); err != nil {
				return nil, err
			}
			seen[name] = lineNo
			ps = append(ps, Pipeline{Name: name, OptLevel: DefaultOptLevel})
			cur = &ps[len(ps)-1]
			continue
		}
		if cur == nil {
			return nil, fmt.Errorf("line %d: %q comes before any `pipeline NAME:` line", lineNo, line)
		}
		if strings.HasPrefix(line, "@") {
			if err := cur.directive(line); err != nil {
				return nil, fmt.Errorf("line %d: %w", lineNo, err)
			}
			continue
		}
		if err := checkPassElement(line); err != nil {
			return nil, fmt.Errorf("line %d: pipeline %s: %w", lineNo, cur.Name, err)
		}
		cur.Steps = append(cur.Steps, Step{Pass: line})
	}
	if err := finish(); err != nil {
		return nil, err
	}
	if len(ps) == 0 {
		return nil, fmt.Errorf("no pipelines defined")
	}
	return ps, nil
}

// directive applies one @ line to p.
func (p *Pipeline) directive(line string) error {
	fields := strings.Fields(line)
	if fields[0] != "@schedule" && len(p.Steps) > 0 {
		return fmt.Errorf("%s after the first step of pipeline %s: it applies to the whole pipeline, so put it first", fields[0], p.Name)
	}
	switch fields[0] {
	case "@schedule":
		if len(fields) != 2 {
			return fmt.Errorf("want `@schedule NAME`, got %q", line)
		}
		if _, ok := ScheduleByName(fields[1]); !ok {
			return fmt.Errorf("unknown schedule %q (known: %s)", fields[1], strings.Join(Schedules(), ", "))
		}
		p.Steps = append(p.Steps, Step{Schedule: fields[1]})
	case "@opt-level":
		if len(fields) != 2 {
			return fmt.Errorf("want `@opt-level N`, got %q", line)
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil || n < 0 || n > 3 {
			return fmt.Errorf("optimization level must be 0, 1, 2 or 3, got %q", fields[1])
		}
		p.OptLevel = n
	case "@verify":
		if len(fields) != 1 {
			return fmt.Errorf("@verify takes no argument, got %q", line)
		}
		p.Verify = true
	default:
		return fmt.Errorf("unknown directive %s (known: @schedule, @opt-level, @verify)", fields[0])
	}
	return nil
}

// checkPassElement checks that s is one well-formed pipeline element: a
// name, then optionally {options} and/or (nested pipeline), with balanced
// brackets and no top-level comma or space.
func checkPassElement(s string) error {
	name := passNameRE.FindString(s)
	if name == "" {
		return fmt.Errorf("bad pass name in %q", s)
	}
	rest := s[len(name):]
	var stack []byte
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if len(stack) == 0 {
			switch c {
			case '{', '(':
			case ',':
				return fmt.Errorf("top-level comma in %q: write one pass per line", s)
			case ' ', '\t':
				return fmt.Errorf("space outside {} in %q: write one pass per line", s)
			default:
				return fmt.Errorf("unexpected %q after %q in %q", rest[i:], s[:len(name)+i], s)
			}
		}
		switch c {
		case '{', '(':
			stack = append(stack, c)
		case '}', ')':
			open := byte('{')
			if c == ')' {
				open = '('
			}
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return fmt.Errorf("unbalanced %q in %q", c, s)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		return fmt.Errorf("unclosed %q in %q", stack[len(stack)-1], s)
	}
	return nil
}
