internal import CRipple

// How a declaration finds or creates its instance in a runtime. The read path (an existing instance) is one lock,
// one slot load and one try-retain: `DeclarationStore.existing(at:)`. Creating an instance is out of line.
extension Runtime {
    /// The runtime declarations use: the one evaluating on this thread (inside a derivation or an effect, the
    /// reader's, whose reads must go to its own graph), else ``Runtime/current``.
    @inline(__always)
    static var forDeclarations: Runtime {
        if let evaluating = EvaluationThreadState.innermost {
            return Unmanaged<Runtime>.fromOpaque(evaluating).takeUnretainedValue()
        }
        return .current
    }

    /// Creates the node of a plain declaration (slot `index`) with `make`, installs it, and queues its
    /// initialized hook. If another thread installed one first, returns that one.
    @inline(never)
    func createInstance(
        slot index: Int, keepAlive: Bool, lifecycle: ErasedLifecycle, body: AnyObject? = nil,
        _ make: () -> RippleNode
    ) -> RippleNode {
        let store = declarations
        let record = DeclaredInstanceRecord(body: body, keepsWrites: !keepAlive) { [store] change in
            switch change {
            case .detach(let node): store.remove(node, at: index)
            case .keep(let node): store.keepWritten(node)
            case .forget(let node): return store.forgetWritten(node).map { [$0] } ?? []
            }
            return []
        }
        return install(make(), record: record, lifecycle: lifecycle) { node in
            store.install(node, at: index, keepAlive: keepAlive)
        }
    }

    /// Creates the member of a family for `key` with `make`, as ``createInstance(slot:keepAlive:lifecycle:body:_:)``
    /// does for a plain declaration.
    @inline(never)
    func createInstance<Key: Hashable & Sendable>(
        in table: FamilyTable<Key>, for key: Key, keepAlive: Bool, lifecycle: ErasedLifecycle,
        body: AnyObject? = nil, _ make: () -> RippleNode
    ) -> RippleNode {
        let store = declarations
        let record = DeclaredInstanceRecord(body: body, keepsWrites: !keepAlive) { [store] change in
            switch change {
            case .detach(let node): store.remove(node, from: table, for: key)
            case .keep(let node): return store.keepWritten(node, in: table, for: key)
            case .forget(let node): return store.forgetWritten(node, in: table, for: key).map { [$0] } ?? []
            }
            return []
        }
        return install(make(), record: record, lifecycle: lifecycle) { node in
            store.install(node, in: table, for: key, keepAlive: keepAlive)
        }
    }

    private func install(
        _ node: RippleNode, record: DeclaredInstanceRecord, lifecycle hooks: ErasedLifecycle,
        into store: (RippleNode) -> RippleNode?
    ) -> RippleNode {
        record.node = Unmanaged.passUnretained(node).toOpaque()
        record.isInstalled = true  // before the node can be found; undone below if it is not
        // The hooks' record, for a declaration that has hooks: before the node can be found, since the engine's
        // watched callback looks for it as soon as something reads the node.
        let lifecycle = hooks.isEmpty ? nil : InstanceLifecycle(runtime: self, hooks: hooks, label: node.label)
        lifecycle?.attach(to: node)
        node.attach(declaredInstance: record, lifecycle: lifecycle)
        // Read weakly (by a `values` observer) it is still kept alive: nothing else may hold it, and an observer
        // that let it go would see it recreated by its next run, forever. Nothing reads it yet: the engine takes
        // the option.
        let status = rp_node_add_options(graph, node.handle, UInt32(RP_NODE_WATCHED_BY_WEAK_READS))
        if _slowPath(status != .RP_OK) { fail(status, "creating", node: node) }
        // Before the node can be found: its first write, whoever makes it, asks the store to keep it.
        if record.keepsWrites { node.markUnwrittenDeclaration() }
        if let winner = store(node) {
            record.isInstalled = false  // `node` was never seen by anyone else: it goes with no hook
            lifecycle?.discard()
            return winner
        }
        if let lifecycle { startLifecycle(lifecycle, of: node) }
        return node
    }

    /// Starts the hooks of `node`, just created (and installed, for a declaration's instance): listens for its
    /// updates if it is an atom whose `updated` hook is set, and queues its `initialized` hooks.
    func startLifecycle(_ lifecycle: InstanceLifecycle, of node: RippleNode) {
        if lifecycle.hooks.updated != nil, node is AnyAtomObject { listenForAtomUpdates() }
        lifecycle.nodeWasCreated()
    }

    /// Registers, once per runtime, the change-log listener that queues the update hooks of atoms with hooks.
    private func listenForAtomUpdates() {
        batch {
            if declarations.listensForUpdates { return }
            declarations.listensForUpdates = true
            changeHooks.append(ChangeHook.Registration(id: ObjectIdentifier(declarations)) { change in
                change.atom.lifecycle?.reportUpdate(old: change.oldValue, new: change.newValue)
            })
            updateChangeHookCount()
        }
    }

    /// Runs `body` with this runtime as ``Runtime/current``, untracked: where a declaration computes an atom's
    /// default (which may read other declarations) and creates its instance.
    func creatingInstance<T>(_ body: () -> T) -> T {
        if Runtime.current === self { return untracked(body) }
        return RippleContext.$runtimeOverride.withValue(self) { untracked(body) }
    }
}

/// An atom, whatever its value type: only atoms report updates through the change log.
protocol AnyAtomObject: AnyObject {}
extension AtomObject: AnyAtomObject {}
