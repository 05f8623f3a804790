// Importing streamharness/guard sends standard output to standard error from then on (only
// the helper's protocol lines reach the harness). It exports nothing.
export {};
