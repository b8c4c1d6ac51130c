/**
 * The client warm-up's own certificate, for its in-process https server when
 * the target is https (warmClient.ts): the run's TLS path (tls.connect, the
 * handshake, TLSSocket reads) is then warm too (docs/performance.md#client-warm-up).
 * Self-signed for 127.0.0.1, EC
 * P-256, valid until 2126. Public on purpose and harmless: only the warm-up's
 * own loopback server presents it, only the warm-up's client connects, and
 * that client does not verify it (nothing trusts this certificate).
 */
export const WARM_TLS = {
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg4vya6diNjHO9fyNw
d9bPboPcFisP02LhlSJO+g5IrYyhRANCAASd4lzZAmr7P+vJ20tBDR2+u02OXTML
kstcDkLk7C8zNFBWYVQve+QsHs6WsDXwlQjLMnZrjx5LKmOyHIZGOiJf
-----END PRIVATE KEY-----
`,
  cert: `-----BEGIN CERTIFICATE-----
MIIBojCCAUigAwIBAgIUKSrlYRPt02ceXlfmNxyyAZ8HyzAwCgYIKoZIzj0EAwIw
HTEbMBkGA1UEAwwSc3RhbGxzY29wZS13YXJtLXVwMCAXDTI2MTIwMTE3MzQ0OFoY
DzIxMjYxMTA3MTczNDQ4WjAdMRswGQYDVQQDDBJzdGFsbHNjb3BlLXdhcm0tdXAw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASd4lzZAmr7P+vJ20tBDR2+u02OXTML
kstcDkLk7C8zNFBWYVQve+QsHs6WsDXwlQjLMnZrjx5LKmOyHIZGOiJfo2QwYjAd
BgNVHQ4EFgQUAjseqqbOgkD0g8enyu6is7erX1owHwYDVR0jBBgwFoAUAjseqqbO
gkD0g8enyu6is7erX1owDwYDVR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAAB
MAoGCCqGSM49BAMCA0gAMEUCIQCAkTr/XAcFZ/aV5/hL8DV/53SLwbUsy38k00be
NZ87MQIgNPd4gogb/g8YKUhahAjQnSnDuNxxJbCsMyqccBvq/A8=
-----END CERTIFICATE-----
`,
};
