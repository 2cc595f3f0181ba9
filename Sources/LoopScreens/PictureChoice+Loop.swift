import LoopModel
import LoopTerminal

extension PictureChoice {
    /// The pictures of a stored loop.
    public init(_ detail: LoopDetail) {
        self.init(
            loop: detail.picture?.path, groups: detail.groupPictures.map { $0?.path },
            phrases: Dictionary(
                uniqueKeysWithValues: detail.phrases.compactMap { phrase in
                    phrase.picture.map { (phrase.number, $0.path) }
                }))
    }
}
