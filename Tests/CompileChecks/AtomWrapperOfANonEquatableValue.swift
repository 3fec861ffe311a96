// @Atom compares values with ==: a value that is not Equatable is pointed to @Atom(equals:).
// expect-error: @Atom compares values with ==, and this type is not Equatable
import Ripple

struct Point { var x = 0.0, y = 0.0 }

func origin() -> Point {
    @Atom var origin = Point()
    return origin
}
