// What the state-by-event table tests share: a cell (the state a machine moves to and what the
// event returned, each as the test describes it) and an event in a state, named in the test's
// name.

import Testing

struct StateCell: Sendable {
    /// The machine's state afterwards.
    let next: String
    /// What the event returned.
    let result: String
}

/// A table's cell, short for its rows.
func cell(_ next: String, _ result: String) -> StateCell { StateCell(next: next, result: result) }

/// `event` when the machine is in `place`: one argument of a table's test.
struct StateCase<Place, Event>: Sendable, CustomTestStringConvertible
where
    Place: RawRepresentable<String> & CaseIterable & Sendable, Event: RawRepresentable<String> & CaseIterable & Sendable
{
    let place: Place
    let event: Event
    var testDescription: String { "\(event.rawValue) when \(place.rawValue)" }

    /// Every event in every place.
    static var all: [Self] { Place.allCases.flatMap { place in Event.allCases.map { Self(place: place, event: $0) } } }
}
