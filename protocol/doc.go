// Package protocol is the checkpoint protocol of ckptsim, written sans I/O
// so that any stream processor can embed it. (Full guide to follow.)
package protocol
