import CVips
import ClassTodayCore
import ClassTodayServer
import Foundation
import Logging

/// `classtoday-bench images`: thumbnails of phone-sized JPEGs made by the server's libvips pipeline, side by side with
/// `vipsthumbnail` (libvips' own command) and ImageMagick's `convert -thumbnail` on the same files in one run, with
/// p50/p99 times and peak resident memory; then the peak memory of the server process while two uploads' variants
/// (thumb, card and full) are made at once; last the image stores side by side (``ImageStoreBenchmark``: the disk, and
/// the bucket of `images.s3.*` when one is configured).
public struct ImageBenchmark: Sendable {
    /// What to run.
    public struct Options: Sendable {
        /// How many JPEGs to generate and thumbnail.
        public var files = 100
        /// Their width in pixels (a 12-megapixel phone photo is 4000 x 3000).
        public var width = 4000
        /// Their height in pixels.
        public var height = 3000
        /// The `vipsthumbnail` program (Debian's libvips-tools).
        public var vipsthumbnail = "/usr/bin/vipsthumbnail"
        /// ImageMagick's `convert` (Debian's imagemagick).
        public var convert = "/usr/bin/convert"
        /// The bucket measured beside the disk, when one is configured.
        public var s3: S3Settings?

        /// The defaults: 100 JPEGs of 4000 x 3000.
        public init() {}
    }

    let options: Options
    /// Where the generated JPEGs are kept (reused by later runs with the same options).
    let folder: String

    /// Prepares the benchmark in `dataDirectory`'s `bench-images-<width>x<height>/` folder.
    public init(_ options: Options, dataDirectory: String) {
        self.options = options
        self.folder = (dataDirectory as NSString).appendingPathComponent("bench-images-\(options.width)x\(options.height)")
    }

    /// The renderer under test, with the server's default limits.
    private let renderer = VipsImageRenderer(maxPixels: AppConfiguration().maxImagePixels)

    /// Runs the benchmark with libvips loaded from `vipsLibrary` and returns the report's lines.
    public func run(vipsLibrary: String, progress: @escaping @Sendable (Int, Int) -> Void) async throws -> [String] {
        let availability = VipsLibrary.load(path: vipsLibrary, logger: Logger(label: "classtoday.bench.images"))
        guard case .available(let version) = availability else {
            throw VipsImageRenderer.Failure.undecodable("libvips cannot be loaded from \(vipsLibrary): \(availability)")
        }
        let files = try generate(progress: progress)
        let sizes = files.compactMap { (try? FileManager.default.attributesOfItem(atPath: $0)[.size]) as? Int }.map(Double.init)
        let output = (folder as NSString).appendingPathComponent("out")
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: output) }

        var lines = [
            "images: \(files.count) JPEGs of \(options.width) x \(options.height) (every other one with EXIF orientation 6), "
                + "median \(String(format: "%.1f", median(sizes) / 1_048_576)) MiB, in \(folder)",
            "(one run; the machine may be shared, so compare the ratios and medians rather than single numbers); libvips \(version)",
        ]
        // One render first, as a running server has made: libvips and its codecs are loaded and counted in "before".
        _ = try await WorkerPool.images.run { try renderer.render(file: files[0], variant: .thumb, encoding: .webp) }
        ResidentMemory.resetPeak()
        let before = ResidentMemory.currentKiB
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<2 {
                let share = files.enumerated().filter { $0.offset % 2 == worker }.map(\.element)
                group.addTask {
                    for file in share {
                        for variant in ImageVariant.allCases {
                            _ = try await WorkerPool.images.run {
                                try renderer.render(file: file, variant: variant, encoding: .jpeg)
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = ContinuousClock.now - start
        let peak = ResidentMemory.peakKiB
        lines.append("two uploads at once (thumb + card + full of each file, 2 workers): \(files.count) uploads in \(elapsed.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 1))))")
        lines.append("  peak RSS of the whole process \(mib(peak)) MiB (goal: under 100 MiB); \(mib(before)) MiB before, so \(mib(peak - before)) MiB for the two uploads' pixels")
        lines.append("thumbnails fitting 320 x 320, JPEG, one at a time     p50 ms    p99 ms   mean ms   peak RSS MiB")
        ResidentMemory.resetPeak()
        let baseline = ResidentMemory.currentKiB
        let ours = try await timeRenders(files, variant: .thumb)
        let oursPeak = ResidentMemory.peakKiB
        lines.append(row("classtoday (libvips in-process)", ours, peakKiB: oursPeak, note: "process; \(mib(baseline)) before"))

        var vips: LatencySample?
        var vipsMean: Double?
        if FileManager.default.isExecutableFile(atPath: options.vipsthumbnail) {
            let (sample, peak) = try timeProcesses(files) { file in
                [options.vipsthumbnail, file, "--size", "320x320", "-o", "\(output)/%s.jpg[Q=82,strip]"]
            }
            vips = sample
            lines.append(row("vipsthumbnail (a process per file)", sample, peakKiB: peak, note: "largest process"))
            let whole = try ChildProcess.run(
                [options.vipsthumbnail, "--size", "320x320", "-o", "\(output)/%s.jpg[Q=82,strip]"] + files)
            var wholeSample = LatencySample()
            wholeSample.record(whole.duration / files.count)
            vipsMean = wholeSample.percentile(0.5)
            lines.append(String(format: "%@  %8@  %8@  %8@  %12.1f %@", pad("vipsthumbnail (one process, all files)"), "-", "-",
                                LatencySample.format(wholeSample.percentile(0.5)), Double(whole.maxResidentKiB) / 1024, "process"))
        } else {
            lines.append("vipsthumbnail: \(options.vipsthumbnail) not found (apt-get install libvips-tools)")
        }
        if FileManager.default.isExecutableFile(atPath: options.convert) {
            let (sample, peak) = try timeProcesses(files) { file in
                [options.convert, file, "-auto-orient", "-thumbnail", "320x320", "-quality", "82", "\(output)/convert.jpg"]
            }
            lines.append(row("convert -thumbnail (ImageMagick)", sample, peakKiB: peak, note: "largest process"))
        } else {
            lines.append("convert: \(options.convert) not found (apt-get install imagemagick)")
        }
        if let vips, let vipsMean {
            lines.append(String(format: "classtoday / vipsthumbnail (goal: at most 1.5x): p50 %.2fx and p99 %.2fx of a process per file; "
                                + "mean %.2fx of one process for all files",
                                ours.percentile(0.5) / vips.percentile(0.5), ours.percentile(0.99) / vips.percentile(0.99),
                                ours.mean / vipsMean))
        }

        lines.append("other variants, one at a time, JPEG                 p50 ms    p99 ms   mean ms")
        for variant in [ImageVariant.card, .full] {
            let sample = try await timeRenders(Array(files.prefix(20)), variant: variant)
            lines.append(row("classtoday \(variant.rawValue) (fits \(variant.boxSide))", sample, peakKiB: nil, note: "first 20 files"))
        }

        lines += try await ImageStoreBenchmark(files: Array(files.prefix(20)), folder: folder + "/stores", s3: options.s3).run()
        return lines
    }

    /// The generated JPEGs, made (with libvips: fine Gaussian noise, which JPEG cannot compress away, like a camera's
    /// detail) when missing.
    private func generate(progress: @escaping @Sendable (Int, Int) -> Void) throws -> [String] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var files: [String] = []
        for index in 0..<options.files {
            let path = (folder as NSString).appendingPathComponent(String(format: "photo-%03d.jpg", index))
            files.append(path)
            if FileManager.default.fileExists(atPath: path) { continue }
            var image: OpaquePointer?
            guard ct_vips_noise(&image, Int32(options.width), Int32(options.height), 8 + Double(index % 5)) == 0, let image
            else { throw VipsImageRenderer.Failure.undecodable("libvips could not generate an image") }
            defer { ct_vips_release(image) }
            if index % 2 == 1 { ct_vips_set_int(image, "orientation", 6) }
            var buffer: UnsafeMutableRawPointer?
            var length = 0
            guard ct_vips_jpeg_keep(image, &buffer, &length, 85) == 0, let buffer else {
                throw VipsImageRenderer.Failure.undecodable("libvips could not encode an image")
            }
            defer { ct_vips_free(buffer) }
            try Data(bytes: buffer, count: length).write(to: URL(fileURLWithPath: path))
            progress(index + 1, options.files)
        }
        return files
    }

    /// Times rendering `variant` of each file, one at a time on the image workers.
    private func timeRenders(_ files: [String], variant: ImageVariant) async throws -> LatencySample {
        var sample = LatencySample()
        for file in files {
            let start = ContinuousClock.now
            _ = try await WorkerPool.images.run { try renderer.render(file: file, variant: variant, encoding: .jpeg) }
            sample.record(ContinuousClock.now - start)
        }
        return sample
    }

    /// Times one process per file; returns the times and the largest peak resident memory of any of them.
    private func timeProcesses(_ files: [String], arguments: (String) -> [String]) throws -> (LatencySample, Int) {
        var sample = LatencySample()
        var peak = 0
        for file in files {
            let run = try ChildProcess.run(arguments(file))
            guard run.succeeded else { throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: arguments(file)[0]]) }
            sample.record(run.duration)
            peak = max(peak, run.maxResidentKiB)
        }
        return (sample, peak)
    }

    private func row(_ name: String, _ sample: LatencySample, peakKiB: Int?, note: String) -> String {
        String(format: "%@  %8@  %8@  %8@  %@ %@", pad(name), LatencySample.format(sample.percentile(0.5)),
               LatencySample.format(sample.percentile(0.99)), LatencySample.format(sample.mean),
               peakKiB.map { String(format: "%12.1f", Double($0) / 1024) } ?? "", note)
    }

    private func pad(_ text: String) -> String {
        text.padding(toLength: 48, withPad: " ", startingAt: 0)
    }

    private func mib(_ kiB: Int) -> String {
        String(format: "%.1f", Double(kiB) / 1024)
    }

    private func median(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : values.sorted()[values.count / 2]
    }
}
