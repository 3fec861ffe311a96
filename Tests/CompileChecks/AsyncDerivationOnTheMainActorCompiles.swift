// expect-success
// An async derivation written on the main actor may read main-actor state in its body, return fresh values and
// register Sendable cleanups; an effect there renders its phase.
import Ripple

struct Weather: Equatable, Sendable { let degrees: Int }

@MainActor
final class WeatherModel {
    let city = atom("Paris")
    var unit = "°C"
    var text = ""
    private var render: Effect?
    private(set) var forecast: AsyncDerivation<Weather>?

    init() {
        let city = self.city
        let forecast = derive { () async throws -> Weather in
            let task = Task { Weather(degrees: city.value.count) }
            await onCleanup { task.cancel() }
            _ = self.unit
            return await task.value
        }
        self.forecast = forecast
        render = Effect { [unowned self] in
            text = forecast.phase.value.map { "\($0.degrees)\(unit)" } ?? "…"
        }
    }
}
