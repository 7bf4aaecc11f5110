// Package docscheck holds the repository's documentation checks (its
// tests): every relative link in the Markdown files points at a file of
// this repository, and nothing a user reads names a file that only the
// project's own developers have.
package docscheck
