"""Gymnasia's own words (es first, pt, en): tool messages for the model, replies, CLI text."""

from __future__ import annotations

from typing import Final

from surefoot import Lang

APP_NAME: Final = "Gymnasia"

_T: Final[dict[str, dict[Lang, str]]] = {
    "measurement_not_found": {
        "es": "No existe un registro de medidas para el {date}. Esto no dice nada sobre otras "
        "fechas.",
        "pt": "Não existe um registo de medidas para {date}. Isto não diz nada sobre outras datas.",
        "en": "There is no measurement record for {date}. This says nothing about other dates.",
    },
    "memory_not_found": {
        "es": "No hay ninguna nota guardada con la clave «{key}». Esto no dice nada sobre otras "
        "claves; list_memory_keys las muestra todas.",
        "pt": "Não há nenhuma nota guardada com a chave «{key}». Isto não diz nada sobre outras "
        "chaves; list_memory_keys mostra-as todas.",
        "en": "There is no note saved under the key '{key}'. This says nothing about other "
        "keys; list_memory_keys shows them all.",
    },
    "range_reversed": {
        "es": "El rango de fechas está invertido: date_from debe ser anterior o igual a date_to.",
        "pt": "O intervalo de datas está invertido: date_from deve ser anterior ou igual a "
        "date_to.",
        "en": "The date range is reversed: date_from must be on or before date_to.",
    },
    "no_fields": {
        "es": "No se ha indicado ninguna medida; no se ha guardado nada. Indica al menos un "
        "valor (por ejemplo weight_kg).",
        "pt": "Não foi indicada nenhuma medida; nada foi guardado. Indique pelo menos um valor "
        "(por exemplo weight_kg).",
        "en": "No measurement was given; nothing was saved. Give at least one value (for "
        "example weight_kg).",
    },
    # -- offline model replies ----------------------------------------------------------------
    "weight_on": {
        "es": "El {date} hay {weight} kg.",
        "pt": "Em {date} há {weight} kg.",
        "en": "On {date} there is {weight} kg.",
    },
    "no_weight_on": {
        "es": "El {date} hay un registro, pero sin peso.",
        "pt": "Em {date} há um registo, mas sem peso.",
        "en": "On {date} there is a record, but without a weight.",
    },
    "no_record": {
        "es": "No hay registro para el {date}.",
        "pt": "Não há registo para {date}.",
        "en": "No record for {date}.",
    },
    "read_failed": {
        "es": "No he podido consultar el {date} ({code}).",
        "pt": "Não consegui consultar {date} ({code}).",
        "en": "I could not look up {date} ({code}).",
    },
    "saved_weight": {
        "es": "Guardado: {weight} kg el {date}.",
        "pt": "Guardado: {weight} kg em {date}.",
        "en": "Saved: {weight} kg on {date}.",
    },
    "save_failed": {
        "es": "No se ha guardado ({code}).",
        "pt": "Não foi guardado ({code}).",
        "en": "It was not saved ({code}).",
    },
    "range_list": {
        "es": "Entre el {start} y el {end} hay {count} registro(s): {items}.",
        "pt": "Entre {start} e {end} há {count} registo(s): {items}.",
        "en": "Between {start} and {end} there are {count} record(s): {items}.",
    },
    "range_empty": {
        "es": "No hay registros entre el {start} y el {end}.",
        "pt": "Não há registos entre {start} e {end}.",
        "en": "There are no records between {start} and {end}.",
    },
    "note_saved": {
        "es": "Nota «{key}» guardada.",
        "pt": "Nota «{key}» guardada.",
        "en": "Note '{key}' saved.",
    },
    "note_value": {
        "es": "La nota «{key}» dice: {value}",
        "pt": "A nota «{key}» diz: {value}",
        "en": "The note '{key}' says: {value}",
    },
    "note_missing": {
        "es": "No hay ninguna nota «{key}».",
        "pt": "Não há nenhuma nota «{key}».",
        "en": "There is no note '{key}'.",
    },
    "note_deleted": {
        "es": "Nota «{key}» borrada.",
        "pt": "Nota «{key}» apagada.",
        "en": "Note '{key}' deleted.",
    },
    "note_not_deleted": {
        "es": "La nota «{key}» no se ha borrado ({code}).",
        "pt": "A nota «{key}» não foi apagada ({code}).",
        "en": "The note '{key}' was not deleted ({code}).",
    },
    "keys_list": {
        "es": "Notas guardadas: {keys}.",
        "pt": "Notas guardadas: {keys}.",
        "en": "Saved notes: {keys}.",
    },
    "keys_empty": {
        "es": "No hay notas guardadas.",
        "pt": "Não há notas guardadas.",
        "en": "There are no saved notes.",
    },
    "tool_trouble": {
        "es": "No he podido completarlo ({code}).",
        "pt": "Não consegui concluir ({code}).",
        "en": "I could not complete it ({code}).",
    },
    "offline_help": {
        "es": "El modelo offline (por reglas, sin IA) solo entiende: guardar un peso "
        "(«Guarda mi peso: 77,4 kg el 2020-01-04.»), consultar el peso de una fecha con otra "
        "de respaldo («Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01.»), "
        "consultar una fecha, listar un rango («Lista mis medidas del 2020-01-01 al "
        "2020-01-31.»), guardar una nota («Guarda la nota objetivo: correr 10 km.»), leerla "
        "(«Lee la nota objetivo.»), listar las notas y borrar una nota. Para todo lo demás, "
        "elige un proveedor con --provider.",
        "pt": "O modelo offline (por regras, sem IA) só entende: guardar um peso («Salve meu "
        "peso: 77,4 kg em 2020-01-04.»), consultar o peso de uma data com outra de recurso "
        "(«Consulte meu peso de 2020-01-02. Se não existir, consulte 2020-01-01.»), consultar "
        "uma data, listar um intervalo («Liste minhas medidas de 2020-01-01 a 2020-01-31.»), "
        "guardar uma nota («Salve a nota objetivo: correr 10 km.»), lê-la («Leia a nota "
        "objetivo.»), listar as notas e apagar uma nota. Para tudo o resto, escolha um "
        "fornecedor com --provider.",
        "en": 'The offline model (rule-based, no AI) only understands: saving a weight ("Save '
        "my weight: 77.4 kg on 2020-01-04.\"), reading one date's weight with a fallback date "
        '("Look up my weight for 2020-01-02. If there is none, look up 2020-01-01."), reading '
        'one date, listing a range ("List my measurements from 2020-01-01 to 2020-01-31."), '
        'saving a note ("Save the note goal: run 10 km."), reading it ("Read the note '
        'goal."), listing notes and deleting a note. For anything else, choose a provider '
        "with --provider.",
    },
    # -- CLI ----------------------------------------------------------------------------------
    "offline_banner": {
        "es": "Modelo: offline (por reglas, sin IA). Usa --provider para un modelo real.",
        "pt": "Modelo: offline (por regras, sem IA). Use --provider para um modelo real.",
        "en": "Model: offline (rule-based, no AI). Use --provider for a real model.",
    },
    "fault_banner": {
        "es": "⚠ INYECCIÓN DE FALLOS ACTIVA (solo QA): {faults}",
        "pt": "⚠ INJEÇÃO DE FALHAS ATIVA (só QA): {faults}",
        "en": "⚠ FAULT INJECTION ACTIVE (QA only): {faults}",
    },
    "no_database": {
        "es": "no existe la base de datos {path}",
        "pt": "a base de dados {path} não existe",
        "en": "the database {path} does not exist",
    },
    "bad_date": {
        "es": "fecha no válida «{value}»: usa AAAA-MM-DD",
        "pt": "data inválida «{value}»: use AAAA-MM-DD",
        "en": "invalid date '{value}': use YYYY-MM-DD",
    },
    "bad_fault": {
        "es": "fallo no válido «{value}»: {reason}",
        "pt": "falha inválida «{value}»: {reason}",
        "en": "invalid fault '{value}': {reason}",
    },
    "no_such_record": {
        "es": "no hay registro para el {date}",
        "pt": "não há registo para {date}",
        "en": "no record for {date}",
    },
    "saved": {
        "es": "guardado",
        "pt": "guardado",
        "en": "saved",
    },
}


def t(lang: Lang, name: str, /, **values: object) -> str:
    """Gymnasia text ``name`` in ``lang``."""
    return _T[name][lang].format(**values)


def number(value: float, lang: Lang) -> str:
    """A number as people write it: ``77,4`` in es/pt, ``77.4`` in en; no trailing ``.0``."""
    formatted = f"{value:.2f}".rstrip("0").rstrip(".")
    return formatted if lang == "en" else formatted.replace(".", ",")
