import Foundation

/// Korean class texts and chat lines full of numbers (times, dates, prices, phone numbers, pages, rooms, addresses,
/// years, percentages, ages, counts), none of which holds a banned word. Digits `0 1 3 4 5 7` look like `o i e a s t`,
/// so these are what a filter that reads digits as letters everywhere gets wrong (`오후 4시 55분` as `a ss`).
public enum KoreanNumberTexts {
    /// The texts that issue 64 found masked or refused.
    public static let reported = ["오후 4시 55분에 만나요", "010-4555-6655", "455665", "크래시 테스트 4-55 수학"]

    /// Texts written by hand: numbers beside Hangul, alone, in phone numbers and prices, and codes that mix Latin
    /// letters with digits without spelling a banned word.
    public static let handWritten = [
        "연락처 010-4555-6655로 문자 주세요", "제 번호는 010-5545-4455이에요", "010 4555 6655", "01045556655",
        "수강료 월 45,000원 (4회)", "1회 55,000원, 4회 등록 시 200,000원", "2만원", "2만5천원", "4만 5천원", "시간당 3.5만원",
        "20,000원", "₩45,500", "45.5만원", "월 455,000원 선결제", "재료비 5,500원 별도", "5천원 할인쿠폰 드려요",
        "교재 p.45~55 풀어오세요", "45쪽부터 55쪽까지", "숙제 45-55쪽", "p45 3번 문제", "455페이지 분량이에요",
        "관악구 신림동 1423-5", "서울시 강남구 테헤란로 455, 5층", "봉천동 455-17번지 3층", "신림로 45길 55",
        "2024년 4월 5일 토요일", "2025.04.05", "4/5(토) 오후 5시", "5월 5일 어린이날 휴강", "2025-05-04 14:55",
        "3층 305호", "B1층 스터디룸", "A동 455호", "B동 1505호", "강의실 455호로 오세요", "4층 455호, 엘리베이터 옆",
        "합격률 95%", "할인 45%", "출석률 55.5%", "45% 할인된 가격이에요", "만 45세 이상", "5살 아이 미술",
        "초등 4학년", "중3 수학", "고1~고3", "주 2회 총 8회", "4주 완성", "45분 수업 + 15분 질문",
        "1:1 과외", "1대1", "4:55 PM 시작", "오전 10:45~11:55", "7시 45분", "17:55 출발", "4:55pm",
        "학번 20214555", "우편번호 04555", "인증번호 455455", "신한 110-455-556677", "카카오뱅크 3333-45-5545571",
        "TOEIC 855점", "IELTS 5.5", "토익 455점에서 855점까지", "JLPT N1", "HSK 5급", "OPIc IH",
        "갤럭시 S24", "아이폰15 프로", "A4 용지 5장", "3D 프린팅", "4K 영상 편집", "5G 요금제", "iOS 17", "Python 3.12",
        "ES6 문법", "MP3 파일", "1st 클래스", "5th 기수 모집", "택배 5kg 이하", "키 155cm", "몸무게 45kg",
        "1955년생", "45세", "4-5세 유아", "4~5명", "4, 5교시", "1995년부터 30년 경력", "24시간 상담 가능",
        "4시 5분", "4시5분", "4시55분", "오후4시55분", "4-55", "4 55", "45 55 65", "0455", "5455", "4505", "45.5",
        "4,555", "4:55", "04:55", "4/55", "455번 버스", "7호선 4번 출구", "55번 마을버스", "1-4-55",
        "ㅋㅋ 455", "455ㅋㅋ", "4시55분ㅎㅎ", "😀 4555", "4️⃣5️⃣5️⃣", "４５５", "오후 ４시 ５５분",
    ]

    /// `count` texts made from class-text and chat-line templates with numbers drawn by a generator seeded with `seed`;
    /// the digits lean towards the ones that look like letters, so that `455` and `4 55` turn up often.
    public static func generated(count: Int, seed: UInt64) -> [String] {
        var filler = TemplateFiller(random: SeededRandom(seed: seed))
        return (0..<count).map { index in filler.fill(templates[index % templates.count]) }
    }

    /// Class texts and chat lines with `{placeholder}`s for ``TemplateFiller``.
    static let templates = [
        "기타 왕초보 레슨 주 {count}회, 회당 {minutes}분, 월 {price}원",
        "수학 과외 (중{grade}, 고{grade}) 시간당 {manwon}",
        "{district} {dong} {lot} {floor}층 스터디룸에서 진행합니다",
        "정원 {count}명, 현재 {count}명 신청",
        "{year}년 {month}월 {day}일 개강, 총 {count}주 과정",
        "수강료 {price}원 (교재비 {price}원 별도)",
        "토익 {score}점 목표반, 평균 {percent}% 점수 향상",
        "{age}세 이상 누구나, {age}~{age}세 환영",
        "요가 클래스 매주 화·목 {clock}~{clock}",
        "문의: {phone} (문자 주세요)",
        "교재 {page}쪽~{page}쪽 예습해 오세요",
        "p.{page}-{page} 숙제",
        "{room}호 강의실, 엘리베이터 {floor}층",
        "합격률 {percent}%, 누적 수강생 {number}명",
        "{year}학년도 수능 대비 {count}개월 완성",
        "원데이 클래스 {manwon} (재료비 포함)",
        "첫 수업 {percent}% 할인 → {price}원",
        "오후 {hour}시 {minute}분에 만나요",
        "내일 {clock}에 {station}역 {count}번 출구 앞에서 봬요",
        "제 번호는 {phone}이에요",
        "{phone}",
        "{number}",
        "{month}/{day} {hour}시 가능하세요?",
        "입금 계좌 {bank} {account}",
        "{price}원 입금했습니다",
        "{floor}층 {room}호로 오시면 돼요",
        "주소는 {district} {dong} {lot}입니다",
        "{minutes}분 정도 늦을 것 같아요 ㅠㅠ",
        "{clock} 말고 {clock}는 어떠세요?",
        "숙제는 {page}페이지부터 {page}페이지까지요",
        "저희 아이는 {age}살이에요",
        "{count}회차 수업 끝! 다음 주 {weekday}요일 {hour}시에 봬요",
        "{year}.{month}.{day} {clock}",
        "인증번호 {code}",
        "{percent}% 정도 이해했어요",
        "{count}명 더 데려가도 될까요? {manwon}으로 할인 가능할까요?",
        "{year}년생, 경력 {count}년",
        "{hour}시{minute}분",
        "{district} {dong} {lot}, {room}호 ({floor}층)",
        "총 {count}회 {price}원, 1회 체험 {manwon}",
    ]
}

/// Fills the `{placeholder}`s of a template with numbers written the way Korean class texts write them.
struct TemplateFiller {
    /// The generator that draws every number.
    var random: SeededRandom

    /// Digits to draw from: the look-alikes of `a s i o e t` several times over, every digit at least once.
    private static let digitPool = Array("44445555110037" + "0123456789")

    /// `template` with each `{name}` replaced by a fresh value.
    mutating func fill(_ template: String) -> String {
        var text = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            text += rest[..<open]
            text += value(for: rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
        }
        return text + rest
    }

    private mutating func value(for placeholder: Substring) -> String {
        switch placeholder {
        case "count": String(Int.random(in: 1...55, using: &random))
        case "minutes": ["45", "50", "55", "40", "90", "15"].randomElement(using: &random)!
        case "price": grouped(leadingDigit() + digits(Int.random(in: 0...2)) + "000")
        case "manwon": manwon()
        case "grade": String(Int.random(in: 1...3, using: &random))
        case "district": ["관악구", "강남구", "마포구", "송파구", "동작구"].randomElement(using: &random)!
        case "dong": ["신림동", "봉천동", "역삼동", "서교동", "잠실동"].randomElement(using: &random)!
        case "station": ["신림", "강남", "서울대입구", "홍대입구", "잠실", "사당"].randomElement(using: &random)!
        case "bank": ["신한", "국민", "우리", "하나", "카카오뱅크"].randomElement(using: &random)!
        case "weekday": ["월", "화", "수", "목", "금", "토", "일"].randomElement(using: &random)!
        case "lot": leadingDigit() + digits(Int.random(in: 1...3)) + "-" + leadingDigit()
        case "floor": String(Int.random(in: 1...15, using: &random))
        case "room": String(Int.random(in: 1...15, using: &random)) + digits(2)
        case "year": String(Int.random(in: 1945...2026, using: &random))
        case "month": String(Int.random(in: 1...12, using: &random))
        case "day": String(Int.random(in: 1...31, using: &random))
        case "hour": String(Int.random(in: 1...12, using: &random))
        case "minute": minute()
        case "clock": "\(Int.random(in: 0...23, using: &random)):\(minute())"
        case "score": String(Int.random(in: 300...990, using: &random))
        case "percent": String(Int.random(in: 1...100, using: &random))
        case "age": String(Int.random(in: 3...75, using: &random))
        case "page": String(Int.random(in: 1...555, using: &random))
        case "phone": ["010", digits(4), digits(4)].joined(separator: ["-", " ", ""].randomElement(using: &random)!)
        case "account": [digits(3), digits(3), digits(6)].joined(separator: "-")
        case "code": digits(6)
        case "number": leadingDigit() + digits(Int.random(in: 0...8))
        default: preconditionFailure("no value for the placeholder {\(placeholder)}")
        }
    }

    /// `count` digits drawn from ``digitPool``.
    private mutating func digits(_ count: Int) -> String {
        String((0..<count).map { _ in Self.digitPool.randomElement(using: &random)! })
    }

    /// A digit that may start a number: not `0`.
    private mutating func leadingDigit() -> String {
        String(Self.digitPool.filter { $0 != "0" }.randomElement(using: &random)!)
    }

    /// Minutes past the hour, two digits (`05`, `45`, `55`).
    private mutating func minute() -> String {
        String("0123455".randomElement(using: &random)!) + digits(1)
    }

    /// A price in 만원 as people write it: `5만원`, `4만5천원`, `4.5만원`, `45,000원`.
    private mutating func manwon() -> String {
        let man = Int.random(in: 1...55, using: &random)
        let cheon = Int.random(in: 1...9, using: &random)
        return [
            "\(man)만원", "\(man)만\(cheon)천원", "\(man).\(cheon)만원", grouped("\(man)\(cheon)000") + "원",
        ].randomElement(using: &random)!
    }

    /// `digits` with a comma every three digits from the right (`45000` → `45,000`).
    private func grouped(_ digits: String) -> String {
        var groups: [String] = []
        var rest = Substring(digits)
        while rest.count > 3 {
            groups.insert(String(rest.suffix(3)), at: 0)
            rest = rest.dropLast(3)
        }
        groups.insert(String(rest), at: 0)
        return groups.joined(separator: ",")
    }
}
