// Package validate is the stage between the reviewers and the anchor: a separate model call
// checks each candidate finding against the code it cites (is the claim true of this code, is
// it introduced or touched by this change, is it specific and actionable) and marks the
// findings that fail as filtered, with the failed check and its reason.
//
// It must never drop a finding: a rejected finding stays in the result with Status Filtered
// and a FilterReason, and a finding whose check could not be made (a transport error, a
// malformed verdict) is kept unchanged and the failure recorded. It must never let the text of
// a finding or of the change choose its instructions: both are shown to the model as data to
// judge.
package validate
