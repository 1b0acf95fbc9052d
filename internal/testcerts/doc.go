// Package testcerts makes certificate authorities and certificates for
// tests of mutual TLS: a CA, and certificates for 127.0.0.1 it signs,
// valid or expired, written as PEM files.
//
// Package testcerts imports only the standard library; it must never
// import host, loadgen, sdk, plugins or cmd.
package testcerts
