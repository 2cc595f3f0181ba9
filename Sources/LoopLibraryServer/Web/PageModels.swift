/// What the pages' templates (`Resources/web/*.mustache`) are given: one struct a page or a part
/// of one, its property names the templates' keys (``TemplateValueEncoder``). A nil property is
/// no key: a section then looks for it in the enclosing context, as Mustache does.

/// The `<head>` of every page and its social card.
struct PageHead: Encodable {
    var title: String
    var cardTitle: String
    var url: String
    var description: String
    var query: String
    var script = false
    /// The study player's script (a loop's page).
    var player = false
}

/// A picture: its source (a blob, served immutable) and size.
struct PictureModel: Encodable {
    var src: String
    var width: Int
    var height: Int
}

/// A tag, with the list it links to (none in the feed).
struct TagModel: Encodable {
    var name: String
    var link: String?
}

/// A loop as a card of a list.
struct CardModel: Encodable {
    var link: String
    var title: String
    var languages: String
    var phraseCount: Int
    var duration: String
    var author: String
    var authorLink: String
    var hasTags: Bool
    var tags: [TagModel]
    var updated: String
    var updatedDay: String
    var downloads: String?
}

/// The previous and next page links of a list.
struct PagerModel: Encodable {
    var page: Int
    var pages: Int
    var previous: String?
    var next: String?
}

/// The front page's search form, as the reader filled it in.
struct FiltersModel: Encodable {
    var q: String
    var language: String
    var translation: String
    var tag: String

    /// The filters as query parameters, by name.
    var parameters: [String: String] { ["q": q, "language": language, "translation": translation, "tag": tag] }
}

/// `/`: the latest (or the results of a search), featured and hot loops.
struct FrontPageModel: Encodable {
    var filters: FiltersModel
    var searching: Bool
    var base: String
    var results: [CardModel]
    var hasResults: Bool
    var pager: PagerModel?
    var resultsTitle: String?
    var featured: [CardModel]?
    var hasFeatured: Bool?
    var hot: [CardModel]?
    var hasHot: Bool?
    var page: PageHead
}

/// `/@name`: an author's loops.
struct AuthorPageModel: Encodable {
    var author: String
    var fingerprint: String
    var total: Int
    var results: [CardModel]
    var hasResults = true
    var pager: PagerModel?
    var page: PageHead
}

/// One phrase of a loop's page.
struct PhraseRowModel: Encodable {
    var number: Int
    /// Its group, from 0 (for the player).
    var group: Int
    var text: String
    var lang: String?
    var translation: String?
    var translationLang: String?
    var clip: String?
    /// Its clip's length in microseconds (for the player).
    var duration: Int?
    var phrasePicture: PictureModel?
    /// The text its clip was recorded for, when the phrase's text changed since.
    var recordedAs: String?
}

/// One group of a loop's page.
struct GroupModel: Encodable {
    var number: Int
    /// From 0 (for the player).
    var index: Int
    var first: Int
    var phrases: [PhraseRowModel]
    var groupPicture: PictureModel?
}

/// `/SHORTID`: a loop's preview page, its card's keys and the rest.
struct LoopPageModel: Encodable {
    /// The loop's id (the player keeps the learner's progress under it).
    var loopId: String
    var card: CardModel
    /// The part its revision alone decides (``LoopPagePart``), rendered already.
    var pictureHTML: String
    var groupsHTML: String
    var revision: Int
    var groupCount: Int
    var featured: Bool
    var installLine: String
    var bundleLink: String
    var bundleSize: String
    var page: PageHead
}

/// One entry of the Atom feed.
struct FeedEntryModel: Encodable {
    var title: String
    var id: String
    var url: String
    var published: String
    var updated: String
    var author: String
    var summary: String
    var tags: [TagModel]
}

/// `/feed.atom`: the latest loops.
struct FeedModel: Encodable {
    var base: String
    var updated: String
    var entries: [FeedEntryModel]
}

/// A page that is not there.
struct MissingPageModel: Encodable {
    var message: String
    var page: PageHead
}

extension LoopPageModel: TemplateModelWithInlineChild {
    /// The page shows its card's keys at its top level.
    static let inlineChild = "card"
}
