import ClassTodayCore
/// The vocabulary synthetic listings and users are written from: topics, sentence templates and name parts.
///
/// Everything here is static data compiled once; generation only picks entries and appends strings.
enum ClassTemplates {
    /// How a topic is usually taught, which decides name forms, price units, group sizes and sentence pools.
    enum Kind: Int, CaseIterable, Sendable {
        /// School subjects: 과외, 내신, 수능.
        case school
        /// Test preparation: TOEIC, 한능검, JLPT.
        case exam
        /// Practical skills: programming, office tools.
        case skill
        /// Hobbies: music, sports, crafts.
        case hobby
        /// Spoken foreign languages.
        case language
    }

    /// One thing a class can be about (`초등 수학`, `요가`, `파이썬`).
    final class Topic: Sendable {
        /// The main subject.
        let subject: Subject
        /// Subjects that may be added as a second one.
        let related: [Subject]
        /// The Korean word sentences and composed names use (`수학`, `요가`, `파이썬`).
        let word: String
        /// An English or Latin-script name (`Python`, `TOEIC`), sometimes used instead of ``word``.
        let english: String?
        /// The audiences the topic suits.
        let targets: [Target]
        /// How it is taught.
        let kind: Kind
        /// The topic's share among the topics of its subject.
        let weight: Double
        /// Whether a per-problem price (question answering) makes sense.
        let allowsPerProblem: Bool
        /// Ready-made names for one-to-one classes.
        let soloNames: [String]
        /// Ready-made names for group classes (스터디, 반, 클래스, 모임).
        let groupNames: [String]
        /// Sentences about the topic, for sellers' descriptions.
        let details: [Template]
        /// Whether ``word`` ends in a consonant (받침), which picks 을/은/이/과/으로.
        let wordHasFinalConsonant: Bool
        /// Whether ``word`` ends in ㄹ, which takes 로 rather than 으로.
        let wordEndsInRieul: Bool

        /// Creates a topic; `names` are split into solo and group names by their wording.
        init(
            _ subject: Subject, _ word: String, english: String? = nil, kind: Kind, targets: [Target],
            related: [Subject] = [], weight: Double = 1, perProblem: Bool = false, names: [String],
            details: [String] = []
        ) {
            self.subject = subject
            self.related = related.filter { $0 != subject }
            self.word = word
            self.english = english
            self.targets = targets
            self.kind = kind
            self.weight = weight
            self.allowsPerProblem = perProblem
            self.soloNames = names.filter { !ClassTemplates.isGroupName($0) }
            self.groupNames = names.filter { ClassTemplates.isGroupName($0) }
            self.details = details.map(Template.init)
            let ending = Hangul.ending(of: word)
            self.wordHasFinalConsonant = ending.hasFinalConsonant
            self.wordEndsInRieul = ending.isRieul
        }
    }

    /// Whether a class name describes a group class rather than one-to-one teaching.
    static func isGroupName(_ name: String) -> Bool {
        let markers = ["스터디", "클래스", "모임", "그룹", "교실", "크루", "특강"]
        return markers.contains { name.contains($0) } || name.hasSuffix("반")
    }

    /// What a template's placeholders are filled with.
    struct Context {
        /// The topic, for `{w}` and `{e}`.
        let topic: Topic
        /// The main audience, for `{t}`.
        let target: Target
        /// The district name, for `{d}`.
        let district: String
        /// The city name, for `{c}`.
        let city: String
        /// The seat count, for `{n}`.
        let capacity: Int
        /// The written price (`3만 5천 원`), for `{p}`.
        let price: String
        /// The price unit in words (`시간당`), for `{u}`.
        let unit: String
    }

    /// A sentence with placeholders, parsed once: `{w}` topic word, `{w을}` `{w은}` `{w이}` `{w과}` `{w로}`
    /// the word with the matching particle, `{e}` the English name (or the word), `{t}` the audience,
    /// `{d}` district, `{c}` city, `{n}` capacity, `{p}` price, `{u}` price unit.
    struct Template: Sendable {
        /// A Korean particle whose form depends on the preceding word's last sound.
        enum Particle: Sendable {
            /// 을/를.
            case object
            /// 은/는.
            case topic
            /// 이/가.
            case subject
            /// 과/와.
            case with
            /// 으로/로.
            case toward
        }

        /// One part of a template.
        enum Piece: Sendable {
            /// Literal text.
            case text(String)
            /// The topic word, optionally followed by a particle.
            case word(Particle?)
            /// The topic's English name, or its word.
            case english
            /// The audience's display name.
            case target
            /// The district name.
            case district
            /// The city name.
            case city
            /// The seat count.
            case capacity
            /// The written price.
            case price
            /// The price unit in words.
            case unit
        }

        /// The parts, in order.
        let pieces: [Piece]

        /// Parses `source`; an unknown placeholder is kept as literal text.
        init(_ source: String) {
            var pieces: [Piece] = []
            var literal = ""
            var rest = Substring(source)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                literal += rest[..<open]
                let key = rest[rest.index(after: open)..<close]
                if let piece = Self.piece(for: key) {
                    if !literal.isEmpty {
                        pieces.append(.text(literal))
                        literal = ""
                    }
                    pieces.append(piece)
                } else {
                    literal += rest[open...close]
                }
                rest = rest[rest.index(after: close)...]
            }
            literal += rest
            if !literal.isEmpty {
                pieces.append(.text(literal))
            }
            self.pieces = pieces
        }

        /// Appends the filled-in template to `text`.
        func render(into text: inout String, _ context: Context) {
            for piece in pieces {
                switch piece {
                case .text(let literal): text += literal
                case .word(let particle):
                    text += context.topic.word
                    if let particle {
                        text += Self.form(of: particle, after: context.topic)
                    }
                case .english: text += context.topic.english ?? context.topic.word
                case .target: text += context.target.displayName
                case .district: text += context.district
                case .city: text += context.city
                case .capacity: text += String(context.capacity)
                case .price: text += context.price
                case .unit: text += context.unit
                }
            }
        }

        private static func piece(for key: Substring) -> Piece? {
            switch key {
            case "w": .word(nil)
            case "w을": .word(.object)
            case "w은": .word(.topic)
            case "w이": .word(.subject)
            case "w과": .word(.with)
            case "w로": .word(.toward)
            case "e": .english
            case "t": .target
            case "d": .district
            case "c": .city
            case "n": .capacity
            case "p": .price
            case "u": .unit
            default: nil
            }
        }

        private static func form(of particle: Particle, after topic: Topic) -> String {
            let consonant = topic.wordHasFinalConsonant
            switch particle {
            case .object: return consonant ? "을" : "를"
            case .topic: return consonant ? "은" : "는"
            case .subject: return consonant ? "이" : "가"
            case .with: return consonant ? "과" : "와"
            case .toward: return consonant && !topic.wordEndsInRieul ? "으로" : "로"
            }
        }
    }

    /// How Korean words end, for choosing particles.
    enum Hangul {
        /// Whether `word`'s last character is read with a final consonant, and whether that consonant is ㄹ.
        /// Hangul syllables are decoded; digits are read in Sino-Korean; anything else counts as a vowel.
        static func ending(of word: String) -> (hasFinalConsonant: Bool, isRieul: Bool) {
            guard let last = word.unicodeScalars.last else { return (false, false) }
            switch last.value {
            case 0xAC00...0xD7A3:
                let final = (last.value - 0xAC00) % 28
                return (final != 0, final == 8)
            case 0x30, 0x33, 0x36: return (true, false) // 영, 삼, 육
            case 0x31, 0x37, 0x38: return (true, true) // 일, 칠, 팔
            default: return (false, false)
            }
        }
    }
}
