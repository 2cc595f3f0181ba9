internal import CSoundTouch
internal import CSoundTouchLoader

/// Every SoundTouch call of the package goes through here.
enum SoundTouch {
    struct Instance: @unchecked Sendable {
        fileprivate let raw: UnsafeMutableRawPointer
    }

    /// Why SoundTouch cannot be used (it is opened on first use), or nil.
    static var loadError: String? { loop_soundtouch_load_error().map { String(cString: $0) } }

    /// `tempo` changes speed, pitch kept; `rate` resamples (output frames = input / rate).
    static func create(sampleRate: Int, channelCount: Int, tempo: Double, rate: Double) -> Instance? {
        guard let raw = soundtouch_createInstance() else { return nil }
        soundtouch_setSampleRate(raw, UInt32(sampleRate))
        soundtouch_setChannels(raw, UInt32(channelCount))
        soundtouch_setTempo(raw, Float(tempo))
        soundtouch_setRate(raw, Float(rate))
        return Instance(raw: raw)
    }

    static func put(_ instance: Instance, _ samples: UnsafeBufferPointer<Float>, frames: Int) {
        guard let base = samples.baseAddress else { return }
        soundtouch_putSamples(instance.raw, base, UInt32(frames))
    }

    /// Moves up to `maxFrames` processed frames into `buffer`; returns how many.
    static func receive(_ instance: Instance, into buffer: UnsafeMutablePointer<Float>, maxFrames: Int) -> Int {
        Int(soundtouch_receiveSamples(instance.raw, buffer, UInt32(maxFrames)))
    }

    static func flush(_ instance: Instance) { soundtouch_flush(instance.raw) }
    static func clear(_ instance: Instance) { soundtouch_clear(instance.raw) }
    static func destroy(_ instance: Instance) { soundtouch_destroyInstance(instance.raw) }
}
