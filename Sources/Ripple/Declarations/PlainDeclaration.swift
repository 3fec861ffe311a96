/// A declaration with one instance per runtime, in its slot of the runtime's store: ``DeclaredAtom``,
/// ``DeclaredDerivation``, ``DeclaredAsyncDerivation``. Finding the instance, creating and installing it, and
/// overriding it are the same for every kind; a kind says only how to make its node.
protocol PlainDeclaration: AnyObject, Sendable {
    /// The value type of the instances.
    associatedtype InstanceValue
    /// The node that stands for the declaration in a runtime.
    associatedtype Instance: OverridableInstance

    var declaration: Declaration<InstanceValue, Instance.InstanceBody, Lifecycle<InstanceValue>> { get }

    /// Creates and installs the instance in `runtime`, which had none: out of line, off the read path.
    func makeInstance(in runtime: Runtime) -> Instance
}

// Every helper is inlined into the declaration's own methods, where `declaration` is a stored property: called
// through the protocol from unspecialized generic code, each access to `declaration` would instantiate the generic
// metadata of its type (a creation of a family member measured 2.5 times slower).
extension PlainDeclaration {
    /// The instance in `runtime`, created if it has none.
    @inline(__always)
    func instance(in runtime: Runtime) -> Instance {
        if let existing = runtime.declarations.existing(at: declaration.index) {
            return unsafeDowncast(existing, to: Instance.self)
        }
        return makeInstance(in: runtime)
    }

    /// The instance in the current runtime if it has one, without creating it (and without recording a read).
    @inline(__always)
    var existingInstance: Instance? {
        Runtime.forDeclarations.declarations.existing(at: declaration.index)
            .map { unsafeDowncast($0, to: Instance.self) }
    }

    /// The body in `runtime`: its override, or the declared one.
    @inline(__always)
    func currentBody(in runtime: Runtime) -> Instance.InstanceBody {
        (runtime.declarations.override(for: declaration.index) as? Instance.InstanceBody) ?? declaration.body
    }

    /// Installs the node `make` creates as the instance in `runtime` (or returns the one another thread installed
    /// first), with the declaration's hooks; `body` is the ``ReplaceableBody`` of a derivation's instance.
    @inline(__always)
    func install(in runtime: Runtime, body: AnyObject? = nil, _ make: () -> RippleNode) -> Instance {
        let node = runtime.createInstance(
            slot: declaration.index, keepAlive: declaration.keepAlive,
            lifecycle: ErasedLifecycle(declaration.lifecycle), body: body, make)
        return unsafeDowncast(node, to: Instance.self)
    }

    /// An override that makes `body` the declaration's in a runtime; an existing instance switches at once.
    @inline(__always)
    func override(with body: Instance.InstanceBody) -> Override {
        Override { runtime in
            runtime.declarations.setOverride(body, for: self.declaration.index)
            if let node = runtime.declarations.existing(at: self.declaration.index) {
                unsafeDowncast(node, to: Instance.self).applyOverride(body)
            }
        }
    }
}
