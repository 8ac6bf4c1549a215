import ClassTodayCore
import ClassTodayServer
import Foundation

/// The South Korean cities synthetic data clusters around, with real coordinates (city halls and district
/// offices, to about 100 m) and real road names.
public enum KoreanCities {
    /// Every city, largest first; weights are populations in millions (2020s, rounded).
    public static let all: [KoreanCity] = [
        seoul, busan, incheon, daegu, daejeon, gwangju, ulsan, suwon, yongin, goyang, changwon, seongnam,
        bucheon, cheongju, anyang, ansan, cheonan, jeonju, pohang, jeju,
    ]

    /// The city called `name` (`서울`), if it is in ``all``.
    public static func named(_ name: String) -> KoreanCity? {
        indexByName[name].map { all[$0] }
    }

    /// Positions in ``all`` by city name.
    static let indexByName: [String: Int] = Dictionary(
        uniqueKeysWithValues: all.enumerated().map { ($0.element.name, $0.offset) }
    )

    /// Picks cities in proportion to their weights.
    static let weightTable = SyntheticData.WeightedTable(weights: all.map(\.weight))

    /// The index in ``all`` of the city whose centre is nearest to `point` (flat-earth distance).
    static func nearestCityIndex(to point: GeoPoint) -> Int {
        let scale = cos(point.lat * .pi / 180)
        var best = 0
        var bestDistance = Double.infinity
        for (index, city) in all.enumerated() {
            let dLat = city.center.lat - point.lat
            let dLon = (city.center.lon - point.lon) * scale
            let distance = dLat * dLat + dLon * dLon
            if distance < bestDistance {
                bestDistance = distance
                best = index
            }
        }
        return best
    }

    private typealias District = KoreanCity.District

    private static func point(_ lat: Double, _ lon: Double) -> GeoPoint {
        GeoPoint(lat: lat, lon: lon)
    }

    private static let seoul = KoreanCity(
        name: "서울", addressPrefix: "서울", center: point(37.5665, 126.9780), weight: 9.4, spreadKilometers: 1.6,
        districtAreas: [
            District(name: "종로구", center: point(37.5735, 126.9790), roads: ["종로", "율곡로", "자하문로", "대학로"]),
            District(name: "중구", center: point(37.5638, 126.9976), roads: ["을지로", "퇴계로", "다산로"]),
            District(name: "용산구", center: point(37.5324, 126.9900), roads: ["한강대로", "이태원로", "녹사평대로"]),
            District(name: "성동구", center: point(37.5634, 127.0369), roads: ["왕십리로", "고산자로", "성수일로"]),
            District(name: "광진구", center: point(37.5385, 127.0823), roads: ["능동로", "아차산로", "자양로"]),
            District(name: "동대문구", center: point(37.5744, 127.0396), roads: ["왕산로", "천호대로", "회기로"]),
            District(name: "중랑구", center: point(37.6063, 127.0925), roads: ["망우로", "동일로", "면목로"]),
            District(name: "성북구", center: point(37.5894, 127.0167), roads: ["보문로", "동소문로", "정릉로"]),
            District(name: "강북구", center: point(37.6396, 127.0257), roads: ["도봉로", "삼양로", "수유로"]),
            District(name: "도봉구", center: point(37.6688, 127.0471), roads: ["도봉로", "방학로", "마들로"]),
            District(name: "노원구", center: point(37.6542, 127.0568), roads: ["동일로", "노원로", "상계로"]),
            District(name: "은평구", center: point(37.6027, 126.9291), roads: ["통일로", "연서로", "은평로"]),
            District(name: "서대문구", center: point(37.5791, 126.9368), roads: ["신촌로", "연희로", "통일로"]),
            District(name: "마포구", center: point(37.5663, 126.9019), roads: ["월드컵로", "양화로", "마포대로"]),
            District(name: "양천구", center: point(37.5170, 126.8664), roads: ["목동로", "오목로", "신월로"]),
            District(name: "강서구", center: point(37.5509, 126.8495), roads: ["공항대로", "화곡로", "강서로"]),
            District(name: "구로구", center: point(37.4954, 126.8874), roads: ["구로중앙로", "디지털로", "경인로"]),
            District(name: "금천구", center: point(37.4570, 126.8955), roads: ["시흥대로", "독산로", "가산로"]),
            District(name: "영등포구", center: point(37.5264, 126.8962), roads: ["영등포로", "여의대로", "당산로"]),
            District(name: "동작구", center: point(37.5124, 126.9393), roads: ["상도로", "노량진로", "사당로"]),
            District(name: "관악구", center: point(37.4784, 126.9516), roads: ["관악로", "봉천로", "남부순환로"]),
            District(name: "서초구", center: point(37.4837, 127.0324), roads: ["서초대로", "반포대로", "강남대로"]),
            District(name: "강남구", center: point(37.5172, 127.0473), roads: ["테헤란로", "도산대로", "논현로"]),
            District(name: "송파구", center: point(37.5145, 127.1059), roads: ["올림픽로", "송파대로", "백제고분로"]),
            District(name: "강동구", center: point(37.5301, 127.1238), roads: ["천호대로", "양재대로", "성내로"]),
        ],
        roads: ["세종대로", "종로", "을지로", "한강대로"]
    )

    private static let busan = KoreanCity(
        name: "부산", addressPrefix: "부산", center: point(35.1796, 129.0756), weight: 3.3, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "중구", center: point(35.1064, 129.0324), roads: ["중앙대로", "광복로"]),
            District(name: "서구", center: point(35.0979, 129.0243), roads: ["구덕로", "까치고개로"]),
            District(name: "동구", center: point(35.1294, 129.0454), roads: ["중앙대로", "초량로"]),
            District(name: "영도구", center: point(35.0912, 129.0679), roads: ["태종로", "절영로"]),
            District(name: "부산진구", center: point(35.1629, 129.0532), roads: ["중앙대로", "전포대로", "가야대로"]),
            District(name: "동래구", center: point(35.2048, 129.0837), roads: ["충렬대로", "명륜로"]),
            District(name: "남구", center: point(35.1365, 129.0843), roads: ["수영로", "용호로"]),
            District(name: "북구", center: point(35.1973, 128.9903), roads: ["낙동대로", "만덕대로"]),
            District(name: "해운대구", center: point(35.1631, 129.1636), roads: ["해운대로", "센텀중앙로", "좌동순환로"]),
            District(name: "사하구", center: point(35.1046, 128.9749), roads: ["낙동대로", "다대로"]),
            District(name: "금정구", center: point(35.2431, 129.0922), roads: ["중앙대로", "금강로"]),
            District(name: "강서구", center: point(35.2122, 128.9807), roads: ["낙동북로", "공항진입로"]),
            District(name: "연제구", center: point(35.1762, 129.0799), roads: ["중앙대로", "월드컵대로"]),
            District(name: "수영구", center: point(35.1455, 129.1131), roads: ["광안해변로", "수영로"]),
            District(name: "사상구", center: point(35.1527, 128.9912), roads: ["사상로", "가야대로"]),
            District(name: "기장군", center: point(35.2445, 129.2222), roads: ["기장대로", "차성로"]),
        ],
        roads: ["중앙대로", "해운대로", "수영로"]
    )

    private static let incheon = KoreanCity(
        name: "인천", addressPrefix: "인천", center: point(37.4563, 126.7052), weight: 3.0, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "중구", center: point(37.4737, 126.6216)),
            District(name: "동구", center: point(37.4739, 126.6432)),
            District(name: "미추홀구", center: point(37.4635, 126.6505)),
            District(name: "연수구", center: point(37.4101, 126.6783), roads: ["컨벤시아대로", "송도과학로", "경원대로"]),
            District(name: "남동구", center: point(37.4470, 126.7314), roads: ["남동대로", "인주대로", "예술로"]),
            District(name: "부평구", center: point(37.5070, 126.7219), roads: ["부평대로", "경인로", "마장로"]),
            District(name: "계양구", center: point(37.5372, 126.7376), roads: ["계양대로", "장제로"]),
            District(name: "서구", center: point(37.5453, 126.6760), roads: ["서곶로", "봉오대로"]),
        ],
        roads: ["인주대로", "경인로", "인하로", "제물량로"]
    )

    private static let daegu = KoreanCity(
        name: "대구", addressPrefix: "대구", center: point(35.8714, 128.6014), weight: 2.4, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "중구", center: point(35.8694, 128.6062)),
            District(name: "동구", center: point(35.8866, 128.6355), roads: ["동대구로", "팔공로", "아양로"]),
            District(name: "서구", center: point(35.8718, 128.5592)),
            District(name: "남구", center: point(35.8460, 128.5974), roads: ["중앙대로", "앞산순환로"]),
            District(name: "북구", center: point(35.8858, 128.5828)),
            District(name: "수성구", center: point(35.8582, 128.6306), roads: ["달구벌대로", "동대구로", "수성로"]),
            District(name: "달서구", center: point(35.8299, 128.5327), roads: ["달서대로", "월배로", "달구벌대로"]),
            District(name: "달성군", center: point(35.7746, 128.4314), roads: ["비슬로", "달성군청로"]),
        ],
        roads: ["달구벌대로", "국채보상로", "중앙대로", "신천대로"]
    )

    private static let daejeon = KoreanCity(
        name: "대전", addressPrefix: "대전", center: point(36.3504, 127.3845), weight: 1.45, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "동구", center: point(36.3120, 127.4548)),
            District(name: "중구", center: point(36.3255, 127.4212)),
            District(name: "서구", center: point(36.3555, 127.3838), roads: ["둔산로", "한밭대로", "계룡로"]),
            District(name: "유성구", center: point(36.3623, 127.3563), roads: ["대학로", "유성대로", "대덕대로"]),
            District(name: "대덕구", center: point(36.3467, 127.4156)),
        ],
        roads: ["대덕대로", "계룡로", "중앙로", "동서대로"]
    )

    private static let gwangju = KoreanCity(
        name: "광주", addressPrefix: "광주", center: point(35.1595, 126.8526), weight: 1.42, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "동구", center: point(35.1461, 126.9232), roads: ["금남로", "제봉로"]),
            District(name: "서구", center: point(35.1521, 126.8901), roads: ["상무대로", "운천로"]),
            District(name: "남구", center: point(35.1330, 126.9024)),
            District(name: "북구", center: point(35.1741, 126.9120), roads: ["무등로", "서암대로"]),
            District(name: "광산구", center: point(35.1396, 126.7937), roads: ["첨단중앙로", "하남대로"]),
        ],
        roads: ["무등로", "상무대로", "죽봉대로", "서문대로"]
    )

    private static let ulsan = KoreanCity(
        name: "울산", addressPrefix: "울산", center: point(35.5384, 129.3114), weight: 1.1, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "중구", center: point(35.5693, 129.3326)),
            District(name: "남구", center: point(35.5443, 129.3301), roads: ["삼산로", "번영로", "문수로"]),
            District(name: "동구", center: point(35.5048, 129.4167), roads: ["방어진순환도로"]),
            District(name: "북구", center: point(35.5827, 129.3613)),
            District(name: "울주군", center: point(35.5623, 129.2428)),
        ],
        roads: ["중앙로", "번영로", "화합로", "삼산로"]
    )

    private static let suwon = KoreanCity(
        name: "수원", addressPrefix: "경기 수원시", center: point(37.2636, 127.0286), weight: 1.2, spreadKilometers: 1.8,
        districtAreas: [
            District(name: "장안구", center: point(37.3039, 127.0102)),
            District(name: "권선구", center: point(37.2578, 126.9719)),
            District(name: "팔달구", center: point(37.2826, 127.0197), roads: ["정조로", "경수대로"]),
            District(name: "영통구", center: point(37.2596, 127.0465), roads: ["광교중앙로", "영통로", "월드컵로"]),
        ],
        roads: ["효원로", "경수대로", "정조로", "권광로"]
    )

    private static let yongin = KoreanCity(
        name: "용인", addressPrefix: "경기 용인시", center: point(37.2411, 127.1776), weight: 1.07, spreadKilometers: 2.2,
        districtAreas: [
            District(name: "처인구", center: point(37.2343, 127.2016)),
            District(name: "기흥구", center: point(37.2803, 127.1150)),
            District(name: "수지구", center: point(37.3222, 127.0977)),
        ],
        roads: ["중부대로", "포은대로", "용구대로", "수지로"]
    )

    private static let goyang = KoreanCity(
        name: "고양", addressPrefix: "경기 고양시", center: point(37.6584, 126.8320), weight: 1.07, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "덕양구", center: point(37.6376, 126.8325)),
            District(name: "일산동구", center: point(37.6585, 126.7748)),
            District(name: "일산서구", center: point(37.6750, 126.7505)),
        ],
        roads: ["중앙로", "호수로", "일산로", "고양대로"]
    )

    private static let changwon = KoreanCity(
        name: "창원", addressPrefix: "경남 창원시", center: point(35.2280, 128.6811), weight: 1.0, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "의창구", center: point(35.2540, 128.6400)),
            District(name: "성산구", center: point(35.1983, 128.7026)),
            District(name: "마산합포구", center: point(35.1973, 128.5677)),
            District(name: "마산회원구", center: point(35.2206, 128.5800)),
            District(name: "진해구", center: point(35.1332, 128.7104)),
        ],
        roads: ["중앙대로", "원이대로", "창원대로", "용지로"]
    )

    private static let seongnam = KoreanCity(
        name: "성남", addressPrefix: "경기 성남시", center: point(37.4200, 127.1267), weight: 0.92, spreadKilometers: 1.8,
        districtAreas: [
            District(name: "수정구", center: point(37.4502, 127.1456)),
            District(name: "중원구", center: point(37.4305, 127.1373)),
            District(name: "분당구", center: point(37.3827, 127.1189), roads: ["분당로", "황새울로", "판교역로", "성남대로"]),
        ],
        roads: ["성남대로", "산성대로", "수정로"]
    )

    private static let bucheon = KoreanCity(
        name: "부천", addressPrefix: "경기 부천시", center: point(37.5034, 126.7660), weight: 0.78, spreadKilometers: 1.5,
        districtAreas: [
            District(name: "원미구", center: point(37.5040, 126.7870)),
            District(name: "소사구", center: point(37.4816, 126.7950)),
            District(name: "오정구", center: point(37.5270, 126.7935)),
        ],
        roads: ["길주로", "부천로", "경인로", "소사로"]
    )

    private static let cheongju = KoreanCity(
        name: "청주", addressPrefix: "충북 청주시", center: point(36.6424, 127.4890), weight: 0.85, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "상당구", center: point(36.5898, 127.5054)),
            District(name: "서원구", center: point(36.6376, 127.4700)),
            District(name: "흥덕구", center: point(36.6272, 127.4340)),
            District(name: "청원구", center: point(36.6512, 127.4867)),
        ],
        roads: ["상당로", "직지대로", "사직대로", "청남로"]
    )

    private static let anyang = KoreanCity(
        name: "안양", addressPrefix: "경기 안양시", center: point(37.3943, 126.9568), weight: 0.55, spreadKilometers: 1.5,
        districtAreas: [
            District(name: "만안구", center: point(37.3866, 126.9322)),
            District(name: "동안구", center: point(37.3925, 126.9514)),
        ],
        roads: ["시민대로", "안양로", "평촌대로", "관악대로"]
    )

    private static let ansan = KoreanCity(
        name: "안산", addressPrefix: "경기 안산시", center: point(37.3219, 126.8309), weight: 0.63, spreadKilometers: 1.8,
        districtAreas: [
            District(name: "상록구", center: point(37.3008, 126.8466)),
            District(name: "단원구", center: point(37.3197, 126.8117)),
        ],
        roads: ["중앙대로", "광덕대로", "고잔로", "화랑로"]
    )

    private static let cheonan = KoreanCity(
        name: "천안", addressPrefix: "충남 천안시", center: point(36.8151, 127.1139), weight: 0.66, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "동남구", center: point(36.8071, 127.1470)),
            District(name: "서북구", center: point(36.8781, 127.1374)),
        ],
        roads: ["번영로", "천안대로", "쌍용대로", "불당대로"]
    )

    private static let jeonju = KoreanCity(
        name: "전주", addressPrefix: "전북 전주시", center: point(35.8242, 127.1480), weight: 0.65, spreadKilometers: 1.8,
        districtAreas: [
            District(name: "완산구", center: point(35.8120, 127.1198)),
            District(name: "덕진구", center: point(35.8290, 127.1336)),
        ],
        roads: ["팔달로", "기린대로", "백제대로", "충경로", "홍산로"]
    )

    private static let pohang = KoreanCity(
        name: "포항", addressPrefix: "경북 포항시", center: point(36.0190, 129.3435), weight: 0.5, spreadKilometers: 2.0,
        districtAreas: [
            District(name: "남구", center: point(36.0087, 129.3594)),
            District(name: "북구", center: point(36.0419, 129.3651)),
        ],
        roads: ["중앙로", "포스코대로", "새천년대로", "희망대로"]
    )

    private static let jeju = KoreanCity(
        name: "제주", addressPrefix: "제주", center: point(33.4996, 126.5312), weight: 0.67, spreadKilometers: 2.2,
        districtAreas: [
            District(name: "제주시", center: point(33.4996, 126.5312), roads: ["중앙로", "연삼로", "노형로", "연북로"]),
            District(name: "서귀포시", center: point(33.2541, 126.5600), roads: ["중정로", "일주동로", "중앙로"]),
        ],
        roads: ["중앙로", "연삼로"]
    )
}
