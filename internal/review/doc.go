// Package review is the reviewers' stage: the reviewer documents (built-in lenses and
// personas), the prompt every reviewer is sent (one shared, cacheable prefix, then each
// reviewer's own instructions), running the reviewers concurrently, and parsing their answers
// into findings. It never decides where a finding goes on the diff (anchor does) and never
// lets the change's own text choose a reviewer's instructions.
package review
