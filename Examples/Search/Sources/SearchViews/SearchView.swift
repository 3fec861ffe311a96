#if canImport(SwiftUI)
import Ripple
import SearchModel
import SwiftUI

/// The search screen: a field bound to the query, the status line and the results, read from Ripple nodes in
/// `body` (SwiftUI tracks them through Observation). Typing cancels the search in flight by itself.
public struct SearchView: View {
    @State private var model: SearchModel

    /// A screen that searches with `client`.
    public init(client: some SearchClient) {
        _model = State(initialValue: SearchModel(client: client))
    }

    public var body: some View {
        NavigationStack {
            List(model.visibleResults) { Text($0.title) }
                .searchable(text: Binding(get: { model.query.value }, set: { model.query.value = $0 }))
                .safeAreaInset(edge: .bottom) { Text(model.status.value).padding() }
                .navigationTitle("Search")
        }
    }
}
#endif
