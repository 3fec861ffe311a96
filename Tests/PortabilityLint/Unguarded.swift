// scripts/lint-portability --self-test: each line marked "found" must be reported, no other. Never compiled.
import Glibc  // found
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
internal import Glibc
#endif

// import Glibc in a comment is not code
let code = Glibc.exit  // found
