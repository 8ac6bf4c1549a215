/// What a class teaches. Raw values are the API's identifiers.
public enum Subject: String, Sendable, Codable, CaseIterable, Hashable {
    case korean, math, english, science, society, language, major, computer, hobby

    /// The Korean display name shown by the app.
    public var displayName: String {
        switch self {
        case .korean: "국어"
        case .math: "수학"
        case .english: "영어"
        case .science: "과학"
        case .society: "사회"
        case .language: "제2외국어"
        case .major: "전공"
        case .computer: "컴퓨터"
        case .hobby: "취미"
        }
    }
}

/// Who a class is for. Raw values are the API's identifiers.
public enum Target: String, Sendable, Codable, CaseIterable, Hashable {
    case elementary, junior, senior, university, housewife, all

    /// The Korean display name shown by the app.
    public var displayName: String {
        switch self {
        case .elementary: "초등학생"
        case .junior: "중학생"
        case .senior: "고등학생"
        case .university: "대학생"
        case .housewife: "주부"
        case .all: "누구나"
        }
    }
}
