import ClassTodayCore
extension ClassTemplates {
    /// Sentence pools for descriptions. Every sentence ends in punctuation, so that words of different
    /// sentences never run together in keyword search.
    enum Sentences {
        /// The position of `target` in `Target.allCases`, which orders the per-audience pools.
        static func targetIndex(_ target: Target) -> Int {
            switch target {
            case .elementary: 0
            case .junior: 1
            case .senior: 2
            case .university: 3
            case .housewife: 4
            case .all: 5
            }
        }

        /// Sellers' greetings, by ``Kind``.
        static let sellIntros: [[Template]] = compile([
            ["안녕하세요, 과외 경력 5년 차 대학생입니다.", "안녕하세요! 현직 학원 강사입니다.",
             "사범대에 다니는 예비 교사예요.", "안녕하세요, {d}에서 {w} 과외를 하고 있는 선생님입니다.",
             "안녕하세요. 교육학을 전공하고 지금은 개인 과외를 하고 있어요."],
            ["안녕하세요, {e} 고득점 경험을 바탕으로 수업하는 강사입니다.", "단기간에 목표 점수를 만든 경험이 있어요.",
             "안녕하세요! 시험 준비만 3년 넘게 도와 온 강사입니다."],
            ["안녕하세요, 현업 개발자입니다.", "{e} 실무 경력 6년 차 직장인입니다.",
             "안녕하세요, {w} 관련 일을 하고 있는 직장인입니다.", "안녕하세요, 대학에서 강의 조교를 했던 사람입니다."],
            ["안녕하세요, {w} 강사로 활동하고 있어요.", "{w을} 10년 넘게 해 온 사람입니다.",
             "안녕하세요! {d}에서 작은 공방을 운영하고 있어요.", "취미로 시작해서 지금은 {w을} 가르치고 있어요."],
            ["안녕하세요, {w} 전공자입니다.", "현지에서 5년 동안 살다 온 사람이에요.",
             "안녕하세요! 통번역 일을 하면서 틈틈이 수업하고 있어요."],
        ])

        /// Generic sellers' sentences about the class, by ``Kind``.
        static let sellDetails: [[Template]] = compile([
            ["개념 설명 후 바로 문제를 풀어 보면서 이해했는지 확인합니다.",
             "매 수업 끝에 숙제를 내 드리고 다음 시간에 꼭 확인해요.",
             "{w} 기초가 약한 학생도 처음부터 차근차근 따라올 수 있어요."],
            ["실전처럼 시간을 재고 문제를 풀어 봅니다.", "기출 분석 자료를 따로 정리해서 드려요.",
             "목표 점수에 맞춰 주차별 계획을 세워 드립니다."],
            ["이론보다 실습 위주로 직접 만들어 보면서 배워요.", "노트북만 가져오시면 됩니다.",
             "수업 자료와 예제 코드는 모두 공유해 드려요."],
            ["재료와 도구는 모두 준비해 드려요.", "완전 처음이셔도 한 시간이면 기본은 익히실 수 있어요.",
             "부담 없이 즐기는 분위기로 진행합니다."],
            ["교재 없이 대화 위주로 진행해요.", "발음과 억양을 하나하나 교정해 드립니다.",
             "매주 짧은 숙제로 표현을 꾸준히 늘려 갑니다."],
        ])

        /// Sellers' sentences about the audience, by target (`Target.allCases` order).
        static let sellTargetLines: [[Template]] = compile([
            ["아이 눈높이에 맞춰 재미있게 설명해요.", "{t} 친구들이 지루하지 않게 활동 위주로 진행합니다.",
             "숙제하는 습관까지 함께 잡아 줄게요."],
            ["학교별 시험 범위에 맞춰 진도를 조절합니다.", "중학생 때 기초를 잡아 두면 고등학교 가서 훨씬 편해요."],
            ["내신과 수능을 함께 챙길 수 있도록 계획을 세워 드려요.",
             "모의고사 결과를 보고 필요한 부분만 골라서 수업합니다."],
            ["전공 시험이나 과제 준비에도 도움이 됩니다.", "대학생분들 시간표에 맞춰 일정을 유연하게 잡을 수 있어요."],
            ["아이 등원 후 오전 시간에 부담 없이 오세요.", "주부님들끼리 편하게 이야기 나누며 배우는 분위기예요."],
            ["처음 하시는 분도 편하게 오시면 됩니다.", "나이 상관없이 누구나 환영합니다.",
             "퇴근 후에 가볍게 배우고 싶은 분께 추천해요."],
        ])

        /// Sellers' sentences about the place.
        static let sellPlaceLines: [Template] = compile([
            "수업은 {d} 근처 스터디카페에서 진행해요.", "{d} 안에서는 방문 수업도 가능합니다.",
            "온라인 화상 수업도 가능해요.", "장소는 {c} {d} 쪽으로 생각하고 있어요.",
            "{d} 근처 카페나 스터디룸에서 만나요.",
        ])

        /// Sellers' sentences about group size.
        static let sellGroupLines: [Template] = compile([
            "최대 {n}명까지 소수 정예로 진행합니다.", "정원은 {n}명이고 인원이 차면 마감할게요.",
            "{n}명이 모이면 바로 시작합니다.",
        ])

        /// Sellers' sentences about the price.
        static let sellPriceLines: [Template] = compile([
            "가격은 {u} {p}이에요.", "수업료는 {u} {p}입니다.", "{u} {p}이고 첫 수업은 상담 위주로 진행해요.",
        ])

        /// Sellers' sentences for a free class.
        static let sellFreeLines: [Template] = compile([
            "재능기부로 무료로 진행합니다.", "수업료는 받지 않아요. 재료비만 각자 부담해 주세요.",
        ])

        /// Sellers' closing sentences.
        static let sellClosings: [Template] = compile([
            "궁금한 점은 편하게 채팅 주세요!", "첫 수업 전에 짧게 상담도 해 드려요.", "관심 있으시면 연락 주세요 :)",
            "꾸준히 함께하실 분 기다립니다.",
        ])

        /// Sellers' sentences when the price is to be agreed.
        static let sellNegotiableLines: [Template] = compile([
            "가격은 협의 가능하니 편하게 문의 주세요.", "수업료는 횟수와 인원에 따라 조정해 드려요.",
        ])

        /// Buyers' self-introductions, by target (`Target.allCases` order).
        static let buyIntros: [[Template]] = compile([
            ["초등학생 아이를 둔 엄마예요.", "초등학교 3학년 아들 엄마입니다.", "초등 5학년 딸 아빠입니다."],
            ["중학교 2학년 학생입니다.", "중3 아이 엄마예요.", "중1 아들을 키우고 있어요."],
            ["고2 학생입니다.", "고3 수험생이에요.", "고1 아이 학부모입니다."],
            ["대학교 2학년 학생이에요.", "복학생입니다.", "취업 준비 중인 대학생이에요."],
            ["아이 둘 키우는 주부예요.", "살림하면서 새로운 걸 배워 보고 싶은 주부입니다."],
            ["평범한 직장인입니다.", "30대 직장인이에요.", "퇴근 후 취미를 찾고 있는 회사원입니다."],
        ])

        /// Buyers' sentences about what they need, for any topic.
        static let buyNeeds: [Template] = compile([
            "{w을} 제대로 배워 보고 싶어서 글 올려요.", "혼자 {w을} 공부하다 보니 한계가 느껴져서요.",
            "{w} 실력을 늘리고 싶어요.", "요즘 {w}에 관심이 생겼는데 어디서부터 시작해야 할지 모르겠어요.",
        ])

        /// Buyers' sentences about what they need, by ``Kind``.
        static let buyNeedsByKind: [[Template]] = compile([
            ["{w} 성적이 계속 제자리라 꼼꼼하게 봐주실 선생님을 찾고 있어요.",
             "다음 시험까지 {w} 점수를 올리고 싶습니다.", "개념은 아는데 문제만 보면 막혀요."],
            ["{e} 시험이 두 달 남았는데 목표 점수가 잘 안 나와요.", "같이 공부하면서 서로 자극이 되면 좋겠어요."],
            ["{e} 기초부터 배우고 싶어요.", "업무에 {w을} 써야 해서 빨리 익히고 싶습니다.",
             "혼자 강의를 보다가 자꾸 막혀서 질문할 곳이 필요해요."],
            ["{w} 완전 초보인데 취미로 배워 보고 싶어요.", "예전에 조금 해 봤는데 다시 시작하고 싶어요."],
            ["여행 가기 전에 {w} 기초 회화를 하고 싶어요.", "{w로} 말하는 연습을 할 상대가 필요해요."],
        ])

        /// Buyers' wishes about the teacher or the place.
        static let buyPreferences: [Template] = compile([
            "{d} 근처에서 만날 수 있으면 좋겠어요.", "온라인 수업도 괜찮습니다.",
            "친절하게 설명해 주시는 분이면 좋겠어요.", "주 1~2회 정도 생각하고 있어요.",
            "경력 있으신 분이면 더 좋아요.",
        ])

        /// Buyers' sentences about their budget.
        static let buyBudgetLines: [Template] = compile([
            "예산은 {u} {p} 정도 생각하고 있어요.", "{u} {p} 선이면 좋겠어요.",
        ])

        /// Buyers' closing sentences.
        static let buyClosings: [Template] = compile([
            "연락 기다릴게요!", "채팅 주세요.", "관심 있으신 분은 댓글 남겨 주세요.", "편하게 연락 주세요.",
        ])

        /// Sellers' sentences about the schedule: weekdays only, weekends only, both, none fixed.
        static let sellScheduleLines: [[Template]] = compile([
            ["평일 수업이에요.", "평일에 시간 맞춰 진행합니다."],
            ["주말반으로 운영합니다.", "주말 낮 시간에 진행해요."],
            ["평일과 주말 모두 가능해요."],
            ["요일과 시간은 상의해서 정해요.", "일정은 협의 가능합니다."],
        ])

        /// Buyers' sentences about the schedule: weekdays only, weekends only, both, none fixed.
        static let buyScheduleLines: [[Template]] = compile([
            ["평일에 수업받고 싶어요.", "평일 저녁이 편해요."],
            ["주말에만 시간이 돼요.", "주말 수업이면 좋겠어요."],
            ["요일은 크게 상관없어요."],
            ["시간은 맞춰 볼게요.", "일정은 최대한 맞춰 드릴게요."],
        ])

        private static func compile(_ sources: [String]) -> [Template] {
            sources.map(Template.init)
        }

        private static func compile(_ sources: [[String]]) -> [[Template]] {
            sources.map { $0.map(Template.init) }
        }
    }
}
