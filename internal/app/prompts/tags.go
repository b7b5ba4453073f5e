package prompts

import "sort"

// DefaultTag is one tag of the catalog seeded on first start.
type DefaultTag struct {
	Tag, English, Russian string
}

// DefaultTags seed the TagCatalog on first start (admins manage it later).
var DefaultTags = []DefaultTag{
	{"writing", "Writing", "Тексты"},
	{"coding", "Coding", "Программирование"},
	{"marketing", "Marketing", "Маркетинг"},
	{"education", "Education", "Обучение"},
	{"research", "Research", "Исследования"},
	{"productivity", "Productivity", "Продуктивность"},
	{"creative", "Creative", "Творчество"},
	{"business", "Business", "Бизнес"},
	{"translation", "Translation", "Перевод"},
	{"data", "Data", "Данные"},
	{"design", "Design", "Дизайн"},
	{"fun", "Fun", "Развлечения"},
}

func sortTags(tags []TagRow) {
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].SortOrder < tags[j].SortOrder })
}
