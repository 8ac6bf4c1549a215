import ClassTodayClient
import Foundation
import OpenAPIRuntime
import Testing

/// The app's journey through every operation group, with the generated client against the real server.
@Suite("Scenario against the real server", .serialized)
struct ScenarioTests {
    /// Seoul City Hall and a point about 1.1 km east of it.
    static let cityHall = Components.Schemas.GeoPoint(lat: 37.5663, lon: 126.9779)
    static let nearby = Components.Schemas.GeoPoint(lat: 37.5663, lon: 126.9904)

    @Test("accounts, classes with every field, search, favourites, images, chat, matches, reviews, alerts, reports, blocks, devices")
    func scenario() async throws {
        try await withServer { server in
            let teacher = try await TestUser.signUp("Teacher", on: server)
            let student = try await TestUser.signUp("Student", on: server)

            // Accounts: profile, location (nullable on the user), public profile.
            let updated = try await teacher.client.updateMe(body: .json(.init(nickname: "Ms Kim", description: "Maths, 10 years", subjects: [.math])))
            #expect(try updated.ok.body.json.nickname == "Ms Kim")
            let located = try await teacher.client.setMyLocation(body: .json(.init(lat: Self.cityHall.lat, lon: Self.cityHall.lon, keywordLocation: "Jung-gu")))
            #expect(try located.ok.body.json.location == Self.cityHall)
            let me = try await teacher.client.getMe().ok.body.json
            #expect(me.keywordLocation == "Jung-gu" && me.profileImageVariants == nil)
            let publicProfile = try await student.client.getUser(path: .init(id: teacher.id)).ok.body.json
            #expect(publicProfile.nickname == "Ms Kim")

            // Images: multipart upload and a raw upload, then the bytes back.
            let multipart = try await teacher.client.uploadImage(body: .multipartForm([
                .file(.init(payload: .init(body: HTTPBody(TestImage.png)), filename: "board.png"))
            ]))
            let photo = try multipart.created.body.json
            #expect(photo.contentType == .imagePng && photo.width == 8 && photo.height == 6)
            let raw = try await teacher.client.uploadImage(body: .png(HTTPBody(TestImage.png))).created.body.json
            let fetched = try await teacher.client.getImage(path: .init(id: photo.id)).ok.body
            if case .png(let bytes) = fetched {
                #expect(try await [UInt8](collecting: bytes, upTo: 1 << 20).starts(with: [0x89, 0x50, 0x4E, 0x47]))
            } else {
                Issue.record("the image came back as \(fetched)")
            }
            let profileImage = try await teacher.client.updateMe(body: .json(.init(profileImageId: raw.id))).ok.body.json
            #expect(profileImage.profileImageVariants != nil)

            // Classes: a sell class with every writable field, location included.
            let sell = try await teacher.client.createClass(body: .json(.init(
                value1: .init(
                    description: "Algebra and geometry for middle school",
                    days: [.mon, .wed], time: "19:00-21:00", place: "Sejong-daero 110", location: Self.cityHall,
                    keywordLocation: "Jung-gu", price: 30000, priceUnit: .perHour, subjects: [.math], targets: [.junior],
                    capacity: 2, imageIds: [photo.id]
                ),
                value2: .init(_type: .sell, name: "Middle school maths")
            ))).created.body.json
            #expect(sell.location == Self.cityHall && sell.time == "19:00-21:00" && sell.priceUnit == .perHour)
            #expect(sell.days == [.mon, .wed] && sell.capacity == 2 && sell.images.map(\.id) == [photo.id])
            #expect(sell.writer.id == teacher.id && sell.status == .open)
            let patched = try await teacher.client.updateClass(path: .init(id: sell.id), body: .json(.init(value1: .init(price: 35000))))
            #expect(try patched.ok.body.json.price == 35000)
            for index in 1...3 {
                _ = try await teacher.client.createClass(body: .json(.init(
                    value1: .init(location: Self.nearby, subjects: [.english]),
                    value2: .init(_type: .sell, name: "English conversation \(index)")
                ))).created
            }
            let buy = try await student.client.createClass(body: .json(.init(
                value1: .init(location: Self.nearby, price: 20000, subjects: [.math], targets: [.junior]),
                value2: .init(_type: .buy, name: "Looking for a maths tutor")
            ))).created.body.json
            #expect(buy._type == .buy)

            // Search: a circle (every result has its distance), a box, keywords, and paging through the cursors.
            let circle = try await student.client.searchClasses(query: .init(lat: Self.cityHall.lat, lon: Self.cityHall.lon, radius: 500)).ok.body.json
            #expect(circle.items.map(\.id) == [sell.id])
            #expect(circle.items.first?.distance.map { $0 < 1 } == true)
            let box = try await student.client.searchClasses(query: .init(bbox: "126.98,37.56,127.00,37.57", _type: .sell)).ok.body.json
            #expect(Set(box.items.map(\.name)) == ["English conversation 1", "English conversation 2", "English conversation 3"])
            let keyword = try await student.client.searchClasses(query: .init(q: "geometry")).ok.body.json
            #expect(keyword.items.map(\.id) == [sell.id])
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await student.client.searchClasses(query: .init(_type: .sell, limit: 2, cursor: cursor)).ok.body.json
                seen += page.items.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen.count == 4 && Set(seen).count == 4)
            #expect(try await student.client.listCategories().ok.body.json.subjects.contains { $0.id == "math" })
            let recommended = try await teacher.client.getRecommendations(path: .init(id: sell.id)).ok.body.json
            let recommendedIds = (recommended.items ?? []).map { item in item._class?.id }
            #expect(recommendedIds == [buy.id])

            // Favourites.
            _ = try await student.client.addFavorite(path: .init(id: sell.id)).noContent
            let favourites = try await student.client.listMyFavorites().ok.body.json
            #expect(favourites.items.map(\.id) == [sell.id] && favourites.items.first?.isFavorite == true)
            _ = try await student.client.removeFavorite(path: .init(id: sell.id)).noContent
            #expect(try await student.client.listMyFavorites().ok.body.json.items.isEmpty)

            // Chat over REST: a room, a message sent twice with one clientId (stored once), history, read.
            let room = try await student.client.openRoom(body: .json(.init(classId: sell.id))).created.body.json
            let first = try await student.client.sendMessage(path: .init(id: room.id), body: .json(.text("Hello, is Monday free?", clientId: "c-1")))
            let message = try first.created.body.json
            let again = try await student.client.sendMessage(path: .init(id: room.id), body: .json(.text("Hello, is Monday free?", clientId: "c-1")))
            #expect(try again.ok.body.json.id == message.id)
            let snapshot = try await student.client.uploadImage(body: .png(HTTPBody(TestImage.png))).created.body.json
            let imageMessage = try await student.client.sendMessage(path: .init(id: room.id), body: .json(.image(id: snapshot.id, clientId: "c-2")))
            #expect(try imageMessage.created.body.json.imageVariants != nil)
            let rooms = try await teacher.client.listRooms().ok.body.json
            #expect(rooms.items.first?.lastMessage?.seq == 2 && rooms.items.first?.unreadCount == 2)
            let history = try await teacher.client.listMessages(path: .init(id: room.id)).ok.body.json
            #expect(history.items.map(\.seq) == [2, 1])
            _ = try await teacher.client.markRoomRead(path: .init(id: room.id), body: .json(.init(seq: 2))).noContent

            // Chat over the socket: the teacher's client sends with a clientId and gets the ack, and sees the
            // student's REST message once.
            let chat = teacher.chatClient(on: server)
            let recorder = ChatRecorder(chat)
            await chat.follow(roomId: room.id, after: 2)
            await chat.start()
            let ack = try await chat.send(.text("Yes, Monday at 7"), to: room.id, clientId: "t-1")
            #expect(ack.seq == 3 && ack.roomId == room.id)
            _ = try await student.client.sendMessage(path: .init(id: room.id), body: .json(.text("Great", clientId: "c-3"))).created
            #expect(try await eventually { await recorder.messages.count >= 2 })
            let socketMessages = await recorder.messages
            #expect(socketMessages.map(\.seq) == [3, 4] && socketMessages.map(\.clientId) == ["t-1", "c-3"])
            await chat.stop()

            // Matches: proposed by the student with terms, accepted and completed; a review of the teacher.
            let match = try await student.client.proposeMatch(path: .init(id: room.id), body: .json(.init(
                days: [.mon], time: "19:00-21:00", place: "Sejong-daero 110", location: Self.cityHall, price: 30000, priceUnit: .perHour
            ))).created.body.json
            #expect(match.status == .proposed && match.location == Self.cityHall && match.priceUnit == .perHour)
            #expect(try await teacher.client.acceptMatch(path: .init(id: match.id)).ok.body.json.status == .accepted)
            #expect(try await student.client.completeMatch(path: .init(id: match.id)).ok.body.json.status == .completed)
            #expect(try await teacher.client.listMyMatches(query: .init(role: .seller)).ok.body.json.items.map(\.id) == [match.id])
            let review = try await student.client.reviewMatch(path: .init(id: match.id), body: .json(.init(grade: 4.5, description: "Clear and patient")))
            #expect(try review.created.body.json.grade == 4.5)
            let reviews = try await student.client.listUserReviews(path: .init(id: teacher.id)).ok.body.json
            #expect(reviews.items.map(\.grade) == [4.5])

            // Alerts: the student's saved search is notified of a new class nearby.
            let alert = try await student.client.createAlert(body: .json(.init(lat: Self.cityHall.lat, lon: Self.cityHall.lon, radius: 2000, _type: .sell))).created.body.json
            #expect(alert._type == .sell)
            #expect(try await student.client.listAlerts().ok.body.json.items.map(\.id) == [alert.id])
            let newClass = try await teacher.client.createClass(body: .json(.init(
                value1: .init(location: Self.nearby), value2: .init(_type: .sell, name: "Science experiments")
            ))).created.body.json
            var notifications: [Components.Schemas.Notification] = []
            #expect(try await eventually {
                notifications = try await student.client.listMyNotifications().ok.body.json.items
                return !notifications.isEmpty
            })
            #expect(notifications.map(\.classId) == [newClass.id] && notifications.map(\.alertId) == [alert.id])
            _ = try await student.client.markNotificationsRead(body: .json(.init(ids: notifications.map(\.id)))).noContent
            #expect(try await student.client.listMyNotifications().ok.body.json.items.allSatisfy(\.read))
            _ = try await student.client.deleteAlert(path: .init(id: alert.id)).noContent

            // Reports and blocks.
            let report = try await student.client.fileReport(body: .json(.init(targetType: ._class, targetId: newClass.id, reason: .spam)))
            #expect(try report.created.body.json.targetType == ._class)
            _ = try await teacher.client.blockUser(path: .init(id: student.id)).noContent
            #expect(try await teacher.client.listMyBlocks().ok.body.json.items.map(\.user.id) == [student.id])
            _ = try await teacher.client.unblockUser(path: .init(id: student.id)).noContent

            // Devices.
            let device = try await teacher.client.registerDevice(path: .init(token: "apns-token-0123456789"), body: .json(.init(platform: .ios, appVersion: "3.0")))
            #expect(try device.created.body.json.platform == .ios)
            #expect(try await teacher.client.listDevices().ok.body.json.items.count == 1)
            _ = try await teacher.client.deleteDevice(path: .init(token: "apns-token-0123456789")).noContent

            // Classes: status, delete; sessions: logout.
            #expect(try await teacher.client.setClassStatus(path: .init(id: newClass.id), body: .json(.init(status: .closed))).ok.body.json.status == .closed)
            _ = try await teacher.client.deleteClass(path: .init(id: newClass.id)).noContent
            _ = try await teacher.client.logout().noContent
            #expect(await teacher.session.tokens == nil)
            let signedOut = try await teacher.client.getMe()
            #expect(try signedOut.unauthorized.body.applicationProblemJson.status == 401)
        }
    }

    @Test("problems decode as their documented types: 401, 404 and 422")
    func problems() async throws {
        try await withServer { server in
            let anonymous = Client(serverURL: server.baseURL, transport: ClassTodayAPI.defaultTransport())
            let unauthorized = try await anonymous.getMe().unauthorized.body.applicationProblemJson
            #expect(unauthorized.status == 401 && !unauthorized.title.isEmpty)

            let user = try await TestUser.signUp("Prober", on: server)
            let notFound = try await user.client.getClass(path: .init(id: "01ARZ3NDEKTSV4RRFFQ69G5FAV")).notFound.body.applicationProblemJson
            #expect(notFound.status == 404)

            let invalid = try await user.client.createClass(body: .json(.init(
                value1: .init(price: 20000, capacity: 500), value2: .init(_type: .sell, name: "Too many seats")
            ))).unprocessableContent.body.applicationProblemJson
            #expect(invalid.status == 422 && invalid.errors?.map(\.field) == ["capacity"])

            let wrongPassword = try await anonymous.login(body: .json(.init(email: "nobody@example.com", password: "wrong-password")))
            #expect(try wrongPassword.unauthorized.body.applicationProblemJson.status == 401)
        }
    }

    @Test("a rejected bearer token is renewed once with the refresh token, and rotation retires the old one")
    func tokenRefresh() async throws {
        try await withServer { server in
            let user = try await TestUser.signUp("Refresher", on: server)
            let original = try #require(await user.session.tokens)
            // A bearer token the server does not know: every request gets a 401 until the session is renewed.
            await user.session.update(.init(accessToken: "expired-\(original.accessToken)", refreshToken: original.refreshToken))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<5 {
                    group.addTask {
                        let me = try await user.client.getMe().ok.body.json
                        #expect(me.id == user.id)
                    }
                }
                try await group.waitForAll()
            }
            let renewed = try #require(await user.session.tokens)
            #expect(renewed.accessToken != original.accessToken && renewed.refreshToken != original.refreshToken)

            // The old refresh token worked once: presented again it is a 401 (and ends the sign-in).
            let reused = try await user.client.refreshSession(body: .json(.init(refreshToken: try #require(original.refreshToken))))
            #expect(try reused.unauthorized.body.applicationProblemJson.status == 401)

            // With no usable refresh token left, the caller gets the server's 401 and the session is cleared.
            await user.session.update(.init(accessToken: "expired", refreshToken: "unknown-refresh-token"))
            #expect(try await user.client.getMe().unauthorized.body.applicationProblemJson.status == 401)
            #expect(await user.session.tokens == nil)
        }
    }
}

