// A declaration whose body is declared `throws(FetchError)` has phases whose errors are FetchErrors: an override
// must throw FetchError too, or a reader's `phase.error` would hold an error of another type.
// expect-error: invalid conversion of thrown error type 'any Error' to 'FetchError'
import Ripple

enum FetchError: Error { case noData }
struct Offline: Error {}

let shelf = declare.derived { () async throws(FetchError) -> [String] in throw .noData }

func offline() -> Override {
    shelf.overridden { () async throws -> [String] in throw Offline() }
}
