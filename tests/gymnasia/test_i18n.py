"""One language, all the way: every entry of the catalogue (``gymnasia.i18n``) and of the
harness's own words is complete in es, pt and en, Portuguese is Brazilian throughout, and what
the data commands and the web pages show in es/pt carries no English word, field id or point
decimal."""

from __future__ import annotations

import datetime as dt
import re
import string
from collections.abc import Iterator, Mapping

import pytest

from gymnasia import catalog, i18n
from gymnasia.web import _i18n
from surefoot import Lang, _texts

TRANSLATED: tuple[Lang, ...] = ("es", "pt")

SAME_IN_EVERY_LANGUAGE = frozenset(
    {"chat", "coach", "gymnasia", "cardio", "core", "kcal", "kg", "kettlebell"}
)
"""Words that are written the same in es/pt as in English."""

PT_PT_TO_PT_BR: Mapping[str, str] = {
    r"regist(?:o|os|ado|ada|ados|adas|ar|a|e|am|ei|ou)": "registro, registrado, registrar",
    r"utilizador(?:es)?": "usuário",
    r"ecrã": "tela",
    r"ficheiros?": "arquivo",
    r"guard(?:ar|e|ado|ada|ados|adas|ei|ou|em)": "salvar, salvo",
    r"apag(?:ar|ue|ado|ada|ados|adas|uei|ou)": "excluir, excluído",
    r"pequeno[- ]almoço": "café da manhã",
    r"(?:est(?:á|ou|ão|amos|ava|avam|eja)|fic(?:a|ar|ou)|continua) a \w+[aei]r": "está fazendo",
    r"a (?:pensar|carregar|processar)": "pensando, carregando, processando",
    r"contact(?:o|os|ar|e)": "contato",
    r"factos?": "fato",
    r"equipas?": "equipe",
    r"telemóvel": "celular",
    r"gerir|gira as": "gerenciar",
    r"rastreio": "rastreamento",
    r"por confirmar": "não confirmado",
    r"hidratos": "carboidratos",
    r"ancas?": "quadril",
    r"gémeos?": "panturrilha",
    r"connosco": "conosco",
    r"percentagem": "porcentagem",
    r"planear": "planejar",
    r"partilh(?:ar|e|a)": "compartilhar",
    r"palavra-passe": "senha",
    r"(?:acç|direcç|selecç|correcç|recepç|receç)(?:ão|ões)": "ação, direção, seleção",
    r"(?:actual|óptim|objecto|exacto|efectu)\w*": "atual, ótimo, objeto, exato, efetuar",
    r"\w*(?:ónimo|ómetro|énero|émio|ténis|bebé)": "anônimo, quilômetro, gênero, prêmio",
    r"à espera": "aguardando",
    r"em falta": "faltando",
    r"introduz\w*": "digitar",
    r"mostra-(?:as|os)|pede-me|diz-me": "mostra todas, me pede, me diz",
    r"aqui vê": "aqui você vê",
    r"bases? de dados": "banco de dados",
    r"ligaç(?:ão|ões)": "conexão",
    r"morada": "endereço",
    r"arranc(?:ar|a|ou|ado)": "iniciar",
    r"sítio": "site",
    r"demasiad[oa]s?": "demais",
    r"libert(?:e|a|ar)": "liberar",
    r"sumos? de": "suco de",
    r"gelados?": "sorvete",
    r"ananás": "abacaxi",
    r"esparguete": "espaguete",
    r"feijão-verde": "vagem",
    r"beringela": "berinjela",
    r"curgete": "abobrinha",
    r"brócolos": "brócolis",
    r"pimentos?": "pimentão",
    r"carne picada": "carne moída",
    r"cozinhad[oa]s?": "cozido",
    r"borrego": "cordeiro",
    r"ovo estrelado": "ovo frito",
    r"leite (?:gordo|meio-gordo|magro)": "leite integral, semidesnatado, desnatado",
    r"passadeira": "esteira",
    r"\w+-(?:m|lh)[oa]s?": "me diga, lhe dê (a pronoun before the verb, not joined after it)",
}
"""European Portuguese forms and the Brazilian ones the catalogue uses instead."""

_PT_PT = re.compile(r"(?<![\w-])(?:" + "|".join(PT_PT_TO_PT_BR) + r")(?![\w-])", re.IGNORECASE)


def _sections() -> dict[str, i18n.Table]:
    return {**i18n.sections(), "harness": _texts._TEXTS}


def _entries() -> Iterator[tuple[str, str, Mapping[Lang, str]]]:
    for section, table in _sections().items():
        for key, texts in table.items():
            yield section, key, texts


def _words(text: str) -> set[str]:
    """The words of ``text`` without its placeholders, numbers, ids and units."""
    plain = re.sub(r"\{[^}]*\}", " ", text)
    return {w.lower() for w in re.findall(r"[^\W\d_]{2,}", plain)} - SAME_IN_EVERY_LANGUAGE


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_entry_is_written_in_three_languages() -> None:
    """No entry of any section lacks a language or is empty in one."""
    gaps = [
        f"{section}.{key}"
        for section, key, texts in _entries()
        if set(texts) != {"es", "pt", "en"} or not all(v.strip() for v in texts.values())
    ]
    assert gaps == []


def test_every_language_fills_the_same_placeholders() -> None:
    """An entry names the same ``{placeholders}`` in es, pt and en."""
    odd = [
        f"{section}.{key}"
        for section, key, texts in _entries()
        if not _fields(texts["es"]) == _fields(texts["pt"]) == _fields(texts["en"])
    ]
    assert odd == []


def test_no_entry_is_left_in_english() -> None:
    """An es or pt text with words is not the English text copied (a few words are the same
    in every language, and are listed)."""
    copied = [
        f"{section}.{key}.{lang}"
        for section, key, texts in _entries()
        for lang in TRANSLATED
        if texts[lang] == texts["en"] and _words(texts["en"])
    ]
    assert copied == []


def test_portuguese_is_brazilian() -> None:
    """No pt text (nor a pt example prompt) uses a European Portuguese form."""
    texts = [(f"{s}.{k}", v["pt"]) for s, k, v in _entries()]
    texts += [(f"web.example.{n}", e) for n, e in enumerate(_i18n.EXAMPLES["pt"])]
    found = [(name, hit.group(0)) for name, text in texts for hit in _PT_PT.finditer(text)]
    assert found == []


def test_bundled_names_are_brazilian() -> None:
    """The pt names of the bundled foods and exercises (shown by the commands and the Coach)
    use no European Portuguese form either."""
    names = [(f.id, f.name("pt")) for f in catalog.foods().values()]
    names += [(e.id, e.name("pt")) for e in catalog.exercises().values()]
    found = [(key, hit.group(0)) for key, name in names for hit in _PT_PT.finditer(name)]
    assert found == []


@pytest.mark.parametrize(
    ("european", "brazilian"),
    [
        ("Não existe um registo de medidas.", "Não existe um registro de medidas."),
        ("Não registei nada.", "Não registrei nada."),
        ("O ficheiro foi guardado.", "O arquivo foi salvo."),
        ("Apagar a nota?", "Excluir a nota?"),
        ("O utilizador está a fazer o pequeno-almoço.", "O usuário está fazendo o café da manhã."),
        ("De facto, a equipa tem um contacto.", "De fato, a equipe tem um contato."),
        ("A pensar… hidratos, anca, gémeo", "Pensando… carboidratos, quadril, panturrilha"),
        ("A base de dados perdeu a ligação.", "O banco de dados perdeu a conexão."),
        ("Sumo de ananás, leite magro e gelado.", "Suco de abacaxi, leite desnatado e sorvete."),
    ],
)
def test_the_european_forms_are_recognised(european: str, brazilian: str) -> None:
    """The list of European forms catches them, and not their Brazilian counterparts."""
    assert _PT_PT.search(european)
    assert not _PT_PT.search(brazilian)


@pytest.mark.parametrize(
    ("lang", "written"),
    [("es", "3 dic 2020"), ("pt", "3 de dez. de 2020"), ("en", "3 Dec 2020")],
)
def test_dates_and_numbers_are_written_as_each_language_does(lang: Lang, written: str) -> None:
    """A date in words and a decimal number follow the language: ``77,4`` in es/pt."""
    assert i18n.day(dt.date(2020, 12, 3), lang) == written
    assert i18n.quantity(77.4, "kg", lang) == ("77.4 kg" if lang == "en" else "77,4 kg")
