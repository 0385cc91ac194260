// Package doccheck holds no code: its tests check properties of the whole
// module's source that no single package can, so that CI enforces them.
//
//   - Doc comments cite the papers, never documents outside the module
//     (the project's internal specs and their resolution numbers).
//   - Every library package's doc has "Errors" and "References" sections.
//   - No function is longer than 120 lines; a long algorithm is a run
//     struct with named steps.
package doccheck
