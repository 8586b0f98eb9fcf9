"""The harness's own words, in Spanish, Portuguese and English.

Two audiences: the model (messages inside error envelopes) and the person (the harness's
replies when it ends a turn itself). Both are product text. None of them ever carries exception
text, paths, SQL or keys; only names the harness already shows (tool names, codes).
"""

from __future__ import annotations

from typing import Final, Literal

Lang = Literal["es", "pt", "en"]
LANGS: Final[tuple[Lang, ...]] = ("es", "pt", "en")

_TEXTS: Final[dict[str, dict[Lang, str]]] = {
    # --- for the model -------------------------------------------------------------------
    "unknown_tool": {
        "es": "No existe ninguna herramienta llamada «{name}»; no se ha ejecutado nada. "
        "Herramientas disponibles: {names}.",
        "pt": "Não existe nenhuma ferramenta chamada «{name}»; nada foi executado. "
        "Ferramentas disponíveis: {names}.",
        "en": "There is no tool named '{name}'; nothing was run. Available tools: {names}.",
    },
    "invalid_arguments": {
        "es": "Los argumentos de «{name}» no son válidos, así que no se ha ejecutado. "
        "Corrige los campos indicados en details y vuelve a llamarla.",
        "pt": "Os argumentos de «{name}» não são válidos, por isso não foi executada. "
        "Corrija os campos indicados em details e chame-a de novo.",
        "en": "The arguments for '{name}' are not valid, so it was not run. "
        "Fix the fields listed in details and call it again.",
    },
    "key_mismatch": {
        "es": "Esta escritura ya quedó registrada con otros argumentos; no se ha ejecutado.",
        "pt": "Esta escrita já foi registrada com outros argumentos; não foi executada.",
        "en": "This write was already recorded with other arguments; it was not run.",
    },
    "unavailable": {
        "es": "No se pudieron leer los datos de «{name}» por un fallo interno. Esto no dice "
        "nada sobre si los datos existen; otra consulta puede funcionar.",
        "pt": "Não foi possível ler os dados de «{name}» devido a uma falha interna. Isto não "
        "diz nada sobre se os dados existem; outra consulta pode funcionar.",
        "en": "The data for '{name}' could not be read because of an internal failure. This "
        "says nothing about whether the data exists; another query may work.",
    },
    "outcome_unknown": {
        "es": "La acción «{name}» falló y no se puede confirmar si llegó a aplicarse. "
        "No se repetirá; el turno termina aquí.",
        "pt": "A ação «{name}» falhou e não é possível confirmar se chegou a ser aplicada. "
        "Não será repetida; o turno termina aqui.",
        "en": "The action '{name}' failed and it cannot be confirmed whether it took effect. "
        "It will not be repeated; the turn ends here.",
    },
    "not_applied": {
        "es": "La acción «{name}» falló y consta que no se aplicó: no se guardó nada. "
        "El turno termina aquí.",
        "pt": "A ação «{name}» falhou e está confirmado que não foi aplicada: nada foi "
        "salvo. O turno termina aqui.",
        "en": "The action '{name}' failed and it is confirmed that it did not take effect: "
        "nothing was saved. The turn ends here.",
    },
    "not_executed": {
        "es": "No se ejecutó: el turno se detuvo antes de esta llamada.",
        "pt": "Não foi executada: o turno parou antes desta chamada.",
        "en": "Not run: the turn stopped before this call.",
    },
    "truncated": {
        "es": "No se ejecutó: la respuesta del modelo se cortó antes de completar esta llamada.",
        "pt": "Não foi executada: a resposta do modelo foi cortada antes de completar esta "
        "chamada.",
        "en": "Not run: the model's response was cut off before this call was complete.",
    },
    "denied": {
        "es": "La persona ha rechazado esta acción; no se ha ejecutado. No la vuelvas a pedir "
        "sin preguntar antes.",
        "pt": "A pessoa recusou esta ação; não foi executada. Não a volte a pedir sem perguntar "
        "antes.",
        "en": "The person declined this action; it was not run. Do not request it again "
        "without asking first.",
    },
    "confirm_unsupported": {
        "es": "«{name}» necesita la confirmación de una persona y este cliente no puede pedirla; "
        "no se ha ejecutado. Pide a la persona que la haga desde la aplicación.",
        "pt": "«{name}» precisa da confirmação de uma pessoa e este cliente não a pode pedir; "
        "não foi executada. Peça à pessoa que a faça a partir da aplicação.",
        "en": "'{name}' needs a person's confirmation and this client cannot ask for it; it was "
        "not run. Ask the person to do it from the application.",
    },
    "remote_failed": {
        "es": "El servidor informó de que «{name}» falló, sin decir por qué. Otra consulta u "
        "otra herramienta puede funcionar.",
        "pt": "O servidor informou que «{name}» falhou, sem dizer porquê. Outra consulta ou "
        "outra ferramenta pode funcionar.",
        "en": "The server reported that '{name}' failed, without saying why. Another query or "
        "tool may work.",
    },
    "guard_repeat": {
        "es": "Esta misma llamada ya falló en este turno con «{code}»; no se ha repetido. "
        "Prueba con otros argumentos u otra herramienta.",
        "pt": "Esta mesma chamada já falhou neste turno com «{code}»; não foi repetida. "
        "Tente outros argumentos ou outra ferramenta.",
        "en": "This exact call already failed in this turn with '{code}'; it was not repeated. "
        "Try other arguments or another tool.",
    },
    "guard_stop": {
        "es": "Esta misma llamada ha fallado ya varias veces en este turno con «{code}»; "
        "el turno se detiene.",
        "pt": "Esta mesma chamada já falhou várias vezes neste turno com «{code}»; o turno para.",
        "en": "This exact call has already failed several times in this turn with '{code}'; "
        "the turn stops.",
    },
    "held_back": {
        "es": "Una ejecución anterior idéntica de «{name}» tiene un resultado sin confirmar; "
        "no se ejecuta de nuevo hasta que se compruebe.",
        "pt": "Uma execução anterior idêntica de «{name}» tem um resultado ainda não confirmado; "
        "não é executada de novo até ser verificada.",
        "en": "An identical earlier run of '{name}' has an unconfirmed result; it is not run "
        "again until that is checked.",
    },
    "in_progress": {
        "es": "Una ejecución anterior idéntica de «{name}» sigue en curso o se interrumpió hace "
        "muy poco; no se ejecuta otra vez. Su resultado se sabrá cuando termine o se compruebe.",
        "pt": "Uma execução anterior idêntica de «{name}» ainda está em curso ou foi "
        "interrompida há muito pouco; não é executada outra vez. O seu resultado será "
        "conhecido quando terminar ou for verificada.",
        "en": "An identical earlier run of '{name}' is still in progress or was interrupted "
        "moments ago; it is not run again. Its result will be known once it finishes or is "
        "checked.",
    },
    "already_done": {
        "es": "Hecho ya: «{name}» se ejecutó en este turno con estos mismos argumentos y "
        "guardó {what}; no se ha repetido (el resultado está en «result»). No lo pidas otra "
        "vez: dile a la persona que ya está hecho.",
        "pt": "Já feito: «{name}» foi executada neste turno com estes mesmos argumentos e "
        "salvou {what}; não foi repetida (o resultado está em «result»). Não a peça de novo: "
        "diga à pessoa que já está feito.",
        "en": "Already done: '{name}' ran in this turn with these same arguments and saved "
        "{what}; it was not repeated (the result is in 'result'). Do not ask for it again: "
        "tell the person it is done.",
    },
    "already_done_stop": {
        "es": "«{name}» ya se hizo en este turno y se ha vuelto a pedir otra vez; no se ha "
        "repetido y el turno se detiene.",
        "pt": "«{name}» já foi feita neste turno e foi pedida outra vez; não foi repetida e "
        "o turno para.",
        "en": "'{name}' was already done in this turn and was asked for yet again; it was not "
        "repeated and the turn stops.",
    },
    "not_in_message": {
        "es": "La persona no ha dicho este valor en la conversación ({fields}), así que "
        "«{name}» no se ha ejecutado. No lo supongas ni lo calcules: pregúntaselo a la persona "
        "en su idioma y vuelve a llamar con lo que diga.",
        "pt": "A pessoa não disse este valor na conversa ({fields}), por isso «{name}» não "
        "foi executada. Não o suponha nem o calcule: pergunte-o à pessoa na língua dela e "
        "chame de novo com o que ela disser.",
        "en": "The person did not say this value in the conversation ({fields}), so '{name}' "
        "was not run. Do not guess or work it out: ask the person, in their language, and "
        "call again with what they say.",
    },
    "denied_derived": {
        "es": "La persona no ha confirmado el valor calculado a partir de sus palabras; no se "
        "ha ejecutado. Pregúntale el valor en la unidad que pide la herramienta.",
        "pt": "A pessoa não confirmou o valor calculado a partir das suas palavras; não foi "
        "executada. Pergunte-lhe o valor na unidade que a ferramenta pede.",
        "en": "The person did not confirm the value worked out from their words; it was not "
        "run. Ask them for the value in the unit the tool takes.",
    },
    "empty_answer_note": {
        "es": "Tu última respuesta estaba vacía. Responde ahora a la persona con un texto "
        "breve en español: qué se ha hecho en este turno o qué necesitas saber.",
        "pt": "A sua última resposta estava vazia. Responda agora à pessoa com um texto breve "
        "em português: o que foi feito neste turno ou o que precisa de saber.",
        "en": "Your last answer was empty. Answer the person now with a short text in "
        "English: what was done in this turn, or what you need to know.",
    },
    "empty_answer_note_done": {
        "es": "Tu última respuesta estaba vacía. Esto es lo que ya ocurrió en este turno (ya "
        "no hace falta ninguna herramienta):\n{done}\nEscribe ahora a la persona un mensaje "
        "breve en español que se lo cuente.",
        "pt": "A sua última resposta estava vazia. Isto é o que já aconteceu neste turno (já "
        "não é preciso nenhuma ferramenta):\n{done}\nEscreva agora à pessoa uma mensagem "
        "breve em português que lho conte.",
        "en": "Your last answer was empty. This is what already happened in this turn (no "
        "tool is needed any more):\n{done}\nWrite the person a short message in English now "
        "that tells them.",
    },
    "invalid_output_note": {
        "es": "Tu respuesta final no tiene la forma pedida: {problems}. Responde de nuevo solo "
        "con un objeto JSON que cumpla el esquema indicado, sin texto alrededor.",
        "pt": "A sua resposta final não tem a forma pedida: {problems}. Responda de novo só "
        "com um objeto JSON que cumpra o esquema indicado, sem texto à volta.",
        "en": "Your final answer does not have the form asked for: {problems}. Answer again "
        "with only a JSON object that matches the given schema, with no text around it.",
    },
    "output_instruction": {
        "es": "Da tu respuesta final solo como un objeto JSON que cumpla este esquema JSON, "
        "sin texto alrededor: {schema}",
        "pt": "Dê a sua resposta final só como um objeto JSON que cumpra este esquema JSON, "
        "sem texto à volta: {schema}",
        "en": "Give your final answer only as a JSON object that matches this JSON Schema, "
        "with no text around it: {schema}",
    },
    "output_not_json": {
        "es": "no es un objeto JSON",
        "pt": "não é um objeto JSON",
        "en": "it is not a JSON object",
    },
    # --- for the model: what is wrong with one argument (never pydantic's English) --------
    "arg_not_object": {
        "es": "los argumentos no son un objeto JSON",
        "pt": "os argumentos não são um objeto JSON",
        "en": "the arguments are not a JSON object",
    },
    "arg_not_object_expected": {
        "es": "un objeto JSON que cumpla el esquema",
        "pt": "um objeto JSON que cumpra o esquema",
        "en": "a JSON object matching the schema",
    },
    "arg_none": {"es": "ninguno", "pt": "nenhum", "en": "none"},
    "arg_missing": {
        "es": "falta este campo",
        "pt": "este campo está faltando",
        "en": "this field is missing",
    },
    "arg_missing_expected": {
        "es": "un valor (obligatorio)",
        "pt": "um valor (obrigatório)",
        "en": "a value (required)",
    },
    "arg_extra": {
        "es": "este campo no existe",
        "pt": "este campo não existe",
        "en": "this field does not exist",
    },
    "arg_extra_expected": {
        "es": "ningún campo con ese nombre; permitidos: {fields}",
        "pt": "nenhum campo com esse nome; permitidos: {fields}",
        "en": "no such field; allowed: {fields}",
    },
    "arg_number": {
        "es": "debe ser un número",
        "pt": "deve ser um número",
        "en": "must be a number",
    },
    "arg_number_expected": {"es": "un número", "pt": "um número", "en": "a number"},
    "arg_finite": {
        "es": "debe ser un número finito",
        "pt": "deve ser um número finito",
        "en": "must be a finite number",
    },
    "arg_finite_expected": {
        "es": "un número finito",
        "pt": "um número finito",
        "en": "a finite number",
    },
    "arg_integer": {
        "es": "debe ser un número entero",
        "pt": "deve ser um número inteiro",
        "en": "must be an integer",
    },
    "arg_integer_expected": {
        "es": "un número entero",
        "pt": "um número inteiro",
        "en": "an integer",
    },
    "arg_string": {
        "es": "debe ser un texto",
        "pt": "deve ser um texto",
        "en": "must be a string",
    },
    "arg_string_expected": {"es": "un texto", "pt": "um texto", "en": "a string"},
    "arg_bool": {
        "es": "debe ser true o false",
        "pt": "deve ser true ou false",
        "en": "must be true or false",
    },
    "arg_bool_expected": {"es": "true o false", "pt": "true ou false", "en": "true or false"},
    "arg_list": {"es": "debe ser una lista", "pt": "deve ser uma lista", "en": "must be a list"},
    "arg_list_expected": {"es": "una lista", "pt": "uma lista", "en": "a list"},
    "arg_object": {
        "es": "debe ser un objeto",
        "pt": "deve ser um objeto",
        "en": "must be an object",
    },
    "arg_object_expected": {"es": "un objeto", "pt": "um objeto", "en": "an object"},
    "arg_range": {
        "es": "el valor está fuera del rango permitido",
        "pt": "o valor está fora do intervalo permitido",
        "en": "the value is out of the allowed range",
    },
    "arg_range_expected": {
        "es": "un número {sign} {limit}",
        "pt": "um número {sign} {limit}",
        "en": "a number {sign} {limit}",
    },
    "arg_date_range": {
        "es": "la fecha está fuera del intervalo permitido",
        "pt": "a data está fora do intervalo permitido",
        "en": "the date is out of the allowed range",
    },
    "arg_date_range_expected": {
        "es": "una fecha {sign} {limit}",
        "pt": "uma data {sign} {limit}",
        "en": "a date {sign} {limit}",
    },
    "arg_choice": {
        "es": "no es una de las opciones permitidas",
        "pt": "não é uma das opções permitidas",
        "en": "is not one of the allowed options",
    },
    "arg_choice_expected": {
        "es": "una de {choices}",
        "pt": "uma de {choices}",
        "en": "one of {choices}",
    },
    "arg_too_short": {"es": "es demasiado corto", "pt": "é curto demais", "en": "is too short"},
    "arg_too_short_expected": {
        "es": "al menos {n} caracteres o elementos",
        "pt": "pelo menos {n} caracteres ou elementos",
        "en": "at least {n} character(s) or item(s)",
    },
    "arg_too_long": {"es": "es demasiado largo", "pt": "é longo demais", "en": "is too long"},
    "arg_too_long_expected": {
        "es": "como mucho {n} caracteres o elementos",
        "pt": "no máximo {n} caracteres ou elementos",
        "en": "at most {n} character(s) or item(s)",
    },
    "arg_date": {
        "es": "no es una fecha de calendario válida",
        "pt": "não é uma data de calendário válida",
        "en": "is not a valid calendar date",
    },
    "arg_date_expected": {
        "es": "una fecha de calendario YYYY-MM-DD",
        "pt": "uma data de calendário YYYY-MM-DD",
        "en": "a calendar date YYYY-MM-DD",
    },
    "grounding_no_number": {
        "es": "la persona no ha escrito este número",
        "pt": "a pessoa não escreveu este número",
        "en": "the person did not write this number",
    },
    "grounding_other_unit": {
        "es": "la persona escribió «{said}», que no está en {unit}",
        "pt": "a pessoa escreveu «{said}», que não está em {unit}",
        "en": "the person wrote '{said}', which is not in {unit}",
    },
    "grounding_number_expected": {
        "es": "un número en {unit} que diga la persona (pregúntaselo)",
        "pt": "um número em {unit} que a pessoa diga (pergunte-lhe)",
        "en": "a number in {unit} the person says (ask them)",
    },
    "grounding_any_expected": {
        "es": "un número que diga la persona (pregúntaselo)",
        "pt": "um número que a pessoa diga (pergunte-lhe)",
        "en": "a number the person says (ask them)",
    },
    "grounding_no_date": {
        "es": "la persona no ha dado esta fecha",
        "pt": "a pessoa não deu esta data",
        "en": "the person did not give this date",
    },
    "grounding_or_leave_out": {
        "es": "{expected}; si la persona no dio ningún dato para él, omite este argumento",
        "pt": "{expected}; se a pessoa não deu nenhum dado para ele, omita este argumento",
        "en": "{expected}; if the person gave none, leave this argument out",
    },
    "grounding_date_expected": {
        "es": "la fecha que diga la persona (pregúntale qué día)",
        "pt": "a data que a pessoa disser (pergunte-lhe que dia)",
        "en": "the date the person gives (ask them which day)",
    },
    "arg_invalid": {
        "es": "el valor no es válido",
        "pt": "o valor não é válido",
        "en": "the value is not valid",
    },
    # --- for the person ------------------------------------------------------------------
    "stop_outcome_unknown": {
        "es": "{app} no puede confirmar si la acción terminó, y no la ha repetido para no "
        "hacerla dos veces.",
        "pt": "{app} não consegue confirmar se a ação terminou, e não a repetiu para não a "
        "fazer duas vezes.",
        "en": "{app} can't confirm whether the action finished, and did not repeat it so as "
        "not to do it twice.",
    },
    "stop_check_first": {
        "es": " Antes de volver a pedirlo, comprueba si quedó hecha: {where}.",
        "pt": " Antes de voltar a pedir, verifique se ficou feita: {where}.",
        "en": " Before asking again, check whether it was done: {where}.",
    },
    "stop_check_first_default": {
        "es": " Antes de volver a pedirlo, comprueba en tus datos si quedó hecha.",
        "pt": " Antes de voltar a pedir, verifique nos seus dados se ficou feita.",
        "en": " Before asking again, check your data to see whether it was done.",
    },
    "stop_idempotent_hint": {
        "es": " Volver a pedirlo es seguro: esta acción no se aplica dos veces.",
        "pt": " Voltar a pedir é seguro: esta ação não é aplicada duas vezes.",
        "en": " Asking again is safe: this action is never applied twice.",
    },
    "stop_idempotent_where": {
        "es": " Para ver si quedó hecha: {where}.",
        "pt": " Para ver se ficou feita: {where}.",
        "en": " To see whether it was done: {where}.",
    },
    "stop_not_applied": {
        "es": "{app} no pudo completar la acción y no se guardó nada. Puedes volver a "
        "intentarlo más tarde.",
        "pt": "{app} não conseguiu concluir a ação e nada foi salvo. Pode tentar de novo "
        "mais tarde.",
        "en": "{app} could not complete the action and nothing was saved. You can try again later.",
    },
    "stop_generic": {
        "es": "{app} ha detenido este turno: {reason}",
        "pt": "{app} parou este turno: {reason}",
        "en": "{app} stopped this turn: {reason}",
    },
    "empty_answer": {
        "es": "El modelo no ha dado ninguna respuesta en este turno.",
        "pt": "O modelo não deu nenhuma resposta neste turno.",
        "en": "The model gave no answer in this turn.",
    },
    "invalid_output": {
        "es": "El modelo no ha dado una respuesta con la forma pedida, ni tras corregirla "
        "{retries} veces.",
        "pt": "O modelo não deu uma resposta com a forma pedida, nem depois de a corrigir "
        "{retries} vezes.",
        "en": "The model did not give an answer of the form asked for, even after {retries} "
        "corrections.",
    },
    "token_budget": {
        "es": "{app} ha detenido este turno: ha usado su límite de {budget} tokens.",
        "pt": "{app} parou este turno: usou o seu limite de {budget} tokens.",
        "en": "{app} stopped this turn: it used its limit of {budget} tokens.",
    },
    "turn_did": {
        "es": "En este turno:",
        "pt": "Neste turno:",
        "en": "In this turn:",
    },
    "turn_saved": {
        "es": "guardado: {what}",
        "pt": "salvo: {what}",
        "en": "saved: {what}",
    },
    "turn_not_applied": {
        "es": "no guardado: {what}",
        "pt": "não salvo: {what}",
        "en": "not saved: {what}",
    },
    "turn_unknown": {
        "es": "sin confirmar si se guardó: {what}",
        "pt": "sem confirmação de que foi salvo: {what}",
        "en": "not confirmed whether it was saved: {what}",
    },
    "turn_nothing": {
        "es": "No se ha guardado ni cambiado nada.",
        "pt": "Nada foi salvo nem alterado.",
        "en": "Nothing was saved or changed.",
    },
    "round_limit": {
        "es": "{app} ha detenido el turno tras {rounds} rondas de herramientas sin llegar a "
        "una respuesta. Prueba a pedirlo de otra forma o en pasos más pequeños.",
        "pt": "{app} parou o turno após {rounds} rondas de ferramentas sem chegar a uma "
        "resposta. Tente pedir de outra forma ou em passos mais pequenos.",
        "en": "{app} stopped the turn after {rounds} tool rounds without reaching an answer. "
        "Try asking differently or in smaller steps.",
    },
    "provider_error": {
        "es": "El proveedor del modelo ({provider}) no respondió correctamente: {problem} "
        "Tus datos no se han visto afectados por este fallo.",
        "pt": "O fornecedor do modelo ({provider}) não respondeu corretamente: {problem} "
        "Os seus dados não foram afetados por esta falha.",
        "en": "The model provider ({provider}) did not answer properly: {problem} "
        "Your data was not affected by this failure.",
    },
    "max_tokens": {
        "es": "La respuesta del modelo se cortó por su límite de longitud.",
        "pt": "A resposta do modelo foi cortada pelo seu limite de comprimento.",
        "en": "The model's response was cut off by its length limit.",
    },
    "refusal": {
        "es": "El modelo se ha negado a responder a esta petición.",
        "pt": "O modelo recusou-se a responder a este pedido.",
        "en": "The model declined to answer this request.",
    },
    "confirm_prompt": {
        "es": "¿Confirmas esta acción? {tool} con {arguments}",
        "pt": "Confirma esta ação? {tool} com {arguments}",
        "en": "Do you confirm this action? {tool} with {arguments}",
    },
    "awaiting_derived": {
        "es": " Escribiste «{said}» y se usaría {field} = {value}: confírmalo solo si es correcto.",
        "pt": " Escreveu «{said}» e seria usado {field} = {value}: confirme só se estiver correto.",
        "en": " You wrote '{said}' and it would use {field} = {value}: confirm only if that "
        "is right.",
    },
    "confirm_field": {
        "es": "Sí, hazlo",
        "pt": "Sim, faça-o",
        "en": "Yes, do it",
    },
    "awaiting_confirmation": {
        "es": "Esta acción necesita tu confirmación antes de ejecutarse: {tool}.",
        "pt": "Esta ação precisa da sua confirmação antes de ser executada: {tool}.",
        "en": "This action needs your confirmation before it runs: {tool}.",
    },
    "provider_auth": {
        "es": "la clave de acceso no es válida o no tiene permiso.",
        "pt": "a chave de acesso não é válida ou não tem permissão.",
        "en": "the access key is not valid or lacks permission.",
    },
    "provider_rate_limit": {
        "es": "ha limitado las peticiones por ahora; espera un poco y vuelve a intentarlo.",
        "pt": "limitou os pedidos por agora; espere um pouco e tente de novo.",
        "en": "it is rate-limiting requests right now; wait a little and try again.",
    },
    "provider_overloaded": {
        "es": "está sobrecargado en este momento; vuelve a intentarlo más tarde.",
        "pt": "está sobrecarregado neste momento; tente de novo mais tarde.",
        "en": "it is overloaded at the moment; try again later.",
    },
    "provider_bad_request": {
        "es": "rechazó la petición como no válida.",
        "pt": "rejeitou o pedido como inválido.",
        "en": "it rejected the request as invalid.",
    },
    "provider_connection": {
        "es": "no se pudo conectar con él.",
        "pt": "não foi possível ligar-se a ele.",
        "en": "it could not be reached.",
    },
    "provider_other": {
        "es": "devolvió una respuesta inesperada.",
        "pt": "devolveu uma resposta inesperada.",
        "en": "it returned an unexpected response.",
    },
}


def has_text(name: str) -> bool:
    """Whether the harness has a text called ``name``."""
    return name in _TEXTS


def text(lang: Lang, name: str, /, **values: object) -> str:
    """The harness text ``name`` in ``lang``, with ``values`` filled in."""
    return _TEXTS[name][lang].format(**values)


def coerce_lang(value: str) -> Lang:
    """``value`` as a supported language; raises ``ValueError`` otherwise."""
    for lang in LANGS:
        if value == lang:
            return lang
    msg = f"unsupported language {value!r}; use one of {', '.join(LANGS)}"
    raise ValueError(msg)
