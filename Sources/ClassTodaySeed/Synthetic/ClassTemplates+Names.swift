import ClassTodayCore
extension ClassTemplates {
    /// Parts that composed class names are built from: `[prefix] word suffix`.
    enum Names {
        /// Audience prefixes for school-like topics, by target (`Target.allCases` order).
        static let schoolPrefixes: [[String]] = [
            ["초등", "초등 저학년", "초4", "초6"],
            ["중등", "중1", "중2", "중3", "중학"],
            ["고등", "고1", "고2", "고3", "수능"],
            ["대학", "편입"],
            ["주부"],
            ["성인", "직장인"],
        ]

        /// Audience prefixes for other topics, by target (`Target.allCases` order).
        static let otherPrefixes: [[String]] = [
            ["어린이", "초등"],
            ["중학생"],
            ["고등학생"],
            ["대학생"],
            ["주부"],
            ["왕초보", "직장인", "성인", "초보자"],
        ]

        /// Sellers' one-to-one name endings, by ``Kind``.
        static let sellSolo: [[String]] = [
            ["과외", "1:1 과외", "개념 과외", "내신 과외", "과외 합니다"],
            ["1:1 코칭", "과외", "단기 과외"],
            ["1:1 과외", "개인 레슨", "입문 과외", "입문"],
            ["개인 레슨", "1:1 레슨", "왕초보 레슨", "레슨"],
            ["1:1 과외", "회화 과외", "개인 레슨"],
        ]

        /// Sellers' group name endings, by ``Kind``.
        static let sellGroup: [[String]] = [
            ["기초반", "심화반", "문제풀이반", "그룹 수업", "소수정예반"],
            ["스터디", "단기 완성반", "실전반"],
            ["입문 수업", "기초 스터디", "실습 클래스", "입문반"],
            ["원데이 클래스", "클래스", "수업", "소모임", "정규반", "입문반"],
            ["회화 스터디", "기초반", "입문 수업", "스터디"],
        ]

        /// Buyers' one-to-one name endings, by ``Kind``.
        static let buySolo: [[String]] = [
            ["과외 구해요", "과외 선생님 구합니다", "선생님 찾아요", "과외 받고 싶어요"],
            ["과외 구합니다", "코칭해 주실 분"],
            ["가르쳐 주실 분 구해요", "과외 구합니다", "멘토 찾아요"],
            ["레슨 받고 싶어요", "가르쳐 주실 분 찾아요", "선생님 구해요"],
            ["과외 선생님 구해요", "회화 파트너 찾아요"],
        ]

        /// Buyers' group name endings, by ``Kind``.
        static let buyGroup: [[String]] = [
            ["같이 공부할 친구 구해요", "그룹 과외 인원 모집"],
            ["스터디원 모집", "같이 준비하실 분 구해요"],
            ["스터디 같이 하실 분", "스터디원 모집합니다"],
            ["같이 배우실 분", "함께할 멤버 모집"],
            ["스터디 같이 하실 분", "스터디원 구해요"],
        ]
    }

    /// Parts that users' nicknames and introductions are built from.
    enum People {
        /// Common family names.
        static let familyNames = [
            "김", "이", "박", "최", "정", "강", "조", "윤", "장", "임", "한", "오", "서", "신", "권", "황", "안",
            "송", "류", "홍",
        ]

        /// Syllables common in given names.
        static let givenSyllables = [
            "민", "서", "지", "현", "우", "준", "수", "연", "윤", "하", "은", "도", "예", "유", "진", "영", "채", "호",
            "재", "성", "아", "희", "주", "원", "혜", "태", "승", "다", "나", "소",
        ]

        /// Nickname endings after a given name.
        static let nameSuffixes = ["쌤", "맘", "님", "짱", "이", "샘"]

        /// Adjectives for nicknames.
        static let adjectives = [
            "행복한", "성실한", "꾸준한", "느긋한", "배고픈", "용감한", "친절한", "부지런한", "조용한", "즐거운",
            "졸린", "씩씩한",
        ]

        /// Nouns for nicknames.
        static let nouns = [
            "고양이", "곰돌이", "펭귄", "다람쥐", "여우", "토끼", "선생님", "학생", "개발자", "수달", "거북이", "강아지",
        ]

        /// Endings for nicknames made of a place and an interest (`관악요가쌤`).
        static let interestSuffixes = ["쌤", "러", "맘", "덕후", "왕"]

        /// Who users say they are.
        static let roles = [
            "대학생", "직장인", "주부", "대학원생", "고등학생", "학원 강사", "프리랜서", "개발자", "디자이너", "취업 준비생",
            "초등학생 학부모", "과외 선생님", "은퇴한 교사", "회사원",
        ]

        /// Greeting forms around the district and role: `(before district, between, after role)`.
        static let greetings: [(String, String, String)] = [
            ("안녕하세요, ", "에 사는 ", "입니다."),
            ("", "에서 지내고 있는 ", "입니다."),
            ("반갑습니다! ", " 주민 ", "입니다."),
        ]

        /// Sentences about a user's interest.
        static let interestLines: [Template] = [
            "{w}에 관심이 많아요.", "{w} 배우는 걸 좋아해요.", "요즘 {w}에 푹 빠져 있어요.", "{w} 과외 경험이 있어요.",
            "주말마다 {w} 공부를 하고 있어요.",
        ].map(Template.init)

        /// Users' closing sentences.
        static let closings = ["편하게 연락 주세요.", "시간 약속은 꼭 지킵니다.", "좋은 인연 기다릴게요.", "같이 성장해요!"]
    }
}
