import Foundation
import Testing
@testable import ClassTodayCore

/// Who may act on what: the ownership and membership rules the repositories apply, in one wording each.
@Suite("Membership and ownership rules")
struct MembershipRulesTests {
    @Test("only the writer may change or delete a class")
    func writer() throws {
        let listing = MatchingTestSupport.listing(writerId: "w")
        try ClassRules.checkWriter(of: listing, is: "w", to: "change")
        #expect(throws: DomainError.forbidden("only the writer may change this class")) {
            try ClassRules.checkWriter(of: listing, is: "other", to: "change")
        }
        #expect(throws: DomainError.forbidden("only the writer may delete this class")) {
            try ClassRules.checkWriter(of: listing, is: "other", to: "delete")
        }
    }

    @Test("only a room's members may act in it, and only they may propose a match there")
    func roomMembers() throws {
        let room = ChatRoom(id: "r", classId: "c", sellerId: "s", buyerId: "b", createdAt: MatchingTestSupport.date)
        try room.checkMember("s", to: "read it")
        try room.checkMember("b", to: "read it")
        #expect(throws: DomainError.forbidden("only the room's members may read it")) { try room.checkMember("x", to: "read it") }
        try Match.checkProposer("b", sellerId: room.sellerId, buyerId: room.buyerId)
        #expect(throws: DomainError.forbidden("only a member of the chat room can propose a match")) {
            try Match.checkProposer("x", sellerId: room.sellerId, buyerId: room.buyerId)
        }
    }

    @Test("a match is reviewed by its members, once completed, about the other member")
    func reviewee() throws {
        let date = MatchingTestSupport.date
        let proposed = try Match.propose(id: "m", roomId: "r", classId: "c", sellerId: "s", buyerId: "b", by: "s",
                                         terms: .unspecified, at: date)
        #expect(throws: DomainError.conflict("a match can be reviewed once it is completed")) { try proposed.reviewee(of: "s") }
        let completed = try proposed.applying(.accept, by: "b", at: date).applying(.complete, by: "s", at: date)
        #expect(try completed.reviewee(of: "s") == "b")
        #expect(try completed.reviewee(of: "b") == "s")
        #expect(throws: DomainError.forbidden("only the match's members may review it")) { try completed.reviewee(of: "x") }
    }

    @Test("only an alert's owner may delete it")
    func alertOwner() throws {
        try Alert.checkOwner("u", is: "u")
        #expect(throws: DomainError.forbidden("only the alert's owner may delete it")) { try Alert.checkOwner("u", is: "x") }
    }
}
