// Requests that fall back to the HTTP short link, against the Python game peer (TCP, the long
// link) and its HTTP peer (the short link, which answers `param1:playerId:sessionId` where
// the TCP peer answers `echo:param1`, so each reply tells which server wrote it).

import Foundation
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import SwiftFrameURLSession
import Testing

@Suite(.timeLimit(.minutes(1))) struct ShortLinkTests {
    /// A port nothing listens on (a port freed by `freePort()` may be taken meanwhile by a peer
    /// of a test running beside these).
    static let refusing = 1

    static func shortLink(_ peer: Peer) -> HTTPFrameClient<GameCommands> {
        HTTPFrameClient(
            url: URL(string: "http://127.0.0.1:\(peer.port)/game")!, requestLayout: .gameHTTPRequest,
            extras: ["playerId": 7, "sessionId": 9])
    }

    static func configuration(shortLink: (any ShortLink)?) -> ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.heartbeat = nil
        configuration.shortLink = shortLink
        return configuration
    }

    /// Nothing listens at the long link's port: the first attempt is refused within
    /// milliseconds, so the long link is down and a request that may fall back goes to the short
    /// link at once, not after its long-link timeout (five seconds here; the first request's
    /// time includes URLSession's first connection, over a second on a loaded machine). Its events arrive as
    /// pushes. A request not marked for the fallback keeps to the long link and fails.
    @Test func aRefusedLongLinkSendsTheRequestOverTheShortLinkAtOnce() async throws {
        let http = try await Peer.start("http", ["--events", "2"])
        var configuration = Self.configuration(shortLink: Self.shortLink(http))
        configuration.reconnect = Backoff(initialDelay: .seconds(5), jitter: 0)
        let client = FrameClient<GameCommands>(host: "127.0.0.1", port: Self.refusing, configuration: configuration)
        let options = RequestOptions(timeout: .seconds(10), fallback: .shortLink(after: .seconds(5)))
        let clock = ContinuousClock()
        let pushes = try await client.running { client in
            let pushes = client.pushes
            // Sent while the first attempt is under way: it waits for it, then goes short.
            var start = clock.now
            let first = try await client.request(TestReq(param1: "first", param2: 4), options: options)
            let firstTook = clock.now - start
            #expect(first.reply.result1 == "first:7:9")
            #expect(first.reply.result2 == 8)
            #expect(first.link == .short)
            #expect(firstTook < .milliseconds(4500), "\(firstTook): the long-link timeout was waited for")

            // While the client backs off: straight to the short link.
            start = clock.now
            let second = try await client.request(TestReq(param1: "second", param2: 1), options: options)
            let secondTook = clock.now - start
            #expect(second.reply.result1 == "second:7:9")
            #expect(second.link == .short)
            #expect(secondTook < .milliseconds(4500), "\(secondTook)")

            // The raw form, decoded as the table decodes what a client receives.
            let raw = try await client.request(
                command: GameCommands.ID.test.rawValue, payload: try TestReq(param1: "raw").serializedBytes(),
                options: options)
            if case let .testRsp(reply) = raw.reply {
                #expect(reply.result1 == "raw:7:9")
            } else {
                Issue.record("\(raw.reply)")
            }

            // Not marked: the long link only, as before.
            start = clock.now
            await #expect(throws: FrameClientError.self) {
                _ = try await client.request(TestReq(param1: "long only"), timeout: .milliseconds(300))
            }
            let failedAfter = clock.now - start
            #expect(failedAfter >= .milliseconds(280), "\(failedAfter)")
            print(
                "short link, long link refused: first request \(firstTook), second \(secondTook); "
                    + "unmarked request failed after \(failedAfter) (deadline 300 ms)")
            return pushes
        }
        // Two events per short reply, three replies: pushes, in order.
        var texts: [String] = []
        for await push in pushes {
            if case let .noticeNtf(notice) = push { texts.append(notice.text) }
        }
        #expect(texts == ["event 1", "event 2", "event 1", "event 2", "event 1", "event 2"])
    }

    /// The long link is up but its server answers each request after 1.5 s: a request with a
    /// long-link timeout of 400 ms is answered over the short link after about 400 ms, and the
    /// long link's late reply is dropped (the next request on it gets its own reply, and no
    /// `Test_Rsp` turns up as a push). With a long-link timeout of 3 s the long link carries it.
    @Test func aSlowLongLinkFallsBackAfterItsTimeoutAndItsLateReplyIsDropped() async throws {
        let http = try await Peer.start("http", ["--events", "0"])
        let game = try await Peer.start("game", ["--delay-ms", "1500"])
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: game.port,
            configuration: Self.configuration(shortLink: Self.shortLink(http)))
        let clock = ContinuousClock()
        let pushes = try await client.running { client in
            let pushes = client.pushes
            _ = try await client.connection(within: .seconds(5))
            var start = clock.now
            let patient = try await client.request(
                TestReq(param1: "patient"),
                options: RequestOptions(timeout: .seconds(10), fallback: .shortLink(after: .seconds(3))))
            let patientTook = clock.now - start
            #expect(patient.reply.result1 == "echo:patient")
            #expect(patient.link == .long(Endpoint(host: "127.0.0.1", port: game.port)))
            #expect(patientTook >= .milliseconds(1450) && patientTook < .seconds(5), "\(patientTook)")

            start = clock.now
            let hurried = try await client.request(
                TestReq(param1: "hurried"),
                options: RequestOptions(timeout: .seconds(10), fallback: .shortLink(after: .milliseconds(400))))
            let hurriedTook = clock.now - start
            #expect(hurried.reply.result1 == "hurried:7:9")
            #expect(hurried.link == .short)
            #expect(hurriedTook >= .milliseconds(390) && hurriedTook < .seconds(5), "\(hurriedTook)")

            // Answered after the late reply to "hurried" (the peer answers in turn).
            start = clock.now
            let next = try await client.request(TestReq(param1: "next"), timeout: .seconds(10))
            let nextTook = clock.now - start
            #expect(next.result1 == "echo:next")
            print(
                "short link, slow long link: long-link timeout 3 s answered by the long link in \(patientTook); "
                    + "400 ms answered by the short link in \(hurriedTook); next long-link request \(nextTook)")
            return pushes
        }
        var unexpected: [GameCommands.Inbound] = []
        for await push in pushes { unexpected.append(push) }
        #expect(unexpected.isEmpty, "\(unexpected)")
    }

    /// The long link's server accepts the connection and never answers: the request goes
    /// over the short link once its long-link timeout (300 ms) has passed.
    @Test func aSilentLongLinkFallsBackAfterItsTimeout() async throws {
        let http = try await Peer.start("http", ["--events", "0"])
        let silent = try await Peer.start("game", ["--silent"])
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: silent.port,
            configuration: Self.configuration(shortLink: Self.shortLink(http)))
        let clock = ContinuousClock()
        try await client.running { client in
            _ = try await client.connection(within: .seconds(5))
            let start = clock.now
            let delivered = try await client.request(
                TestReq(param1: "unheard"),
                options: RequestOptions(timeout: .seconds(5), fallback: .shortLink(after: .milliseconds(300))))
            let took = clock.now - start
            #expect(delivered.reply.result1 == "unheard:7:9")
            #expect(delivered.link == .short)
            #expect(took >= .milliseconds(290) && took < .milliseconds(4500), "\(took)")
            print("short link, silent long link: answered by the short link in \(took) (long-link timeout 300 ms)")
        }
    }

    /// The long link's connection closes on the request: a request that may fall back goes
    /// over the short link at once (idempotent or not) rather than waiting for the next
    /// connection; one that may not fails with `connectionLost`.
    @Test func aDropSendsTheRequestOverTheShortLink() async throws {
        let http = try await Peer.start("http", ["--events", "0"])
        let game = try await Peer.start("game", ["--drop-first", "2"])
        var configuration = Self.configuration(shortLink: Self.shortLink(http))
        configuration.reconnect = Backoff(initialDelay: .seconds(3), jitter: 0)
        let client = FrameClient<GameCommands>(host: "127.0.0.1", port: game.port, configuration: configuration)
        let clock = ContinuousClock()
        try await client.running { client in
            _ = try await client.connection(within: .seconds(5))
            let start = clock.now
            let delivered = try await client.request(
                TestReq(param1: "dropped"),
                options: RequestOptions(
                    timeout: .seconds(5), idempotent: true, fallback: .shortLink(after: .seconds(4))))
            let took = clock.now - start
            #expect(delivered.reply.result1 == "dropped:7:9")
            #expect(delivered.link == .short)
            #expect(delivered.retries == 0)
            #expect(took < .milliseconds(2800), "\(took): waited for the next connection (3 s)")
            print("short link, long link dropped: answered by the short link in \(took) (reconnect in 3 s)")

            let connection = try await client.connection(within: .seconds(5))
            do {
                _ = try await connection.request(TestReq(param1: "long only"), timeout: .seconds(5))
                Issue.record("answered")
            } catch FrameClientError.connectionLost {}
        }
    }

    /// Without a short link in the configuration the fallback changes nothing: the request
    /// waits for the long link until its deadline.
    @Test func withoutAShortLinkTheFallbackKeepsToTheLongLink() async throws {
        let client = FrameClient<GameCommands>(
            host: "127.0.0.1", port: Self.refusing,
            configuration: Self.configuration(shortLink: nil))
        let clock = ContinuousClock()
        try await client.running { client in
            let start = clock.now
            do {
                _ = try await client.request(
                    TestReq(param1: "x"),
                    options: RequestOptions(
                        timeout: .milliseconds(400), fallback: .shortLink(after: .milliseconds(100))))
                Issue.record("answered")
            } catch let FrameClientError.noConnection(after, _) {
                #expect(after == .milliseconds(400))
            }
            #expect(clock.now - start >= .milliseconds(380))
        }
    }
}
