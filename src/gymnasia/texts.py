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
    # -- diet and training (tools, then data commands) --------------------------------------
    "food_not_found": {
        "es": "No hay ningún alimento con el id «{food_id}» en la tabla de alimentos; no se ha "
        "anotado nada. search_foods encuentra los ids válidos.",
        "pt": "Não há nenhum alimento com o id «{food_id}» na tabela de alimentos; nada foi "
        "registado. search_foods encontra os ids válidos.",
        "en": "There is no food with the id '{food_id}' in the food table; nothing was logged. "
        "search_foods finds valid ids.",
    },
    "exercise_not_found": {
        "es": "La tabla de ejercicios no tiene ningún ejercicio con estos ids: {ids}. No se ha "
        "creado la rutina; search_exercises encuentra los ids válidos.",
        "pt": "A tabela de exercícios não tem nenhum exercício com estes ids: {ids}. A rotina não "
        "foi criada; search_exercises encontra os ids válidos.",
        "en": "The exercise table has no exercise with these ids: {ids}. The routine was not "
        "created; search_exercises finds valid ids.",
    },
    "routine_exists": {
        "es": "Ya hay una rutina llamada «{name}»; no se ha creado otra ni se ha cambiado la que "
        "existe. read_routines muestra las rutinas guardadas; usa otro nombre para una nueva.",
        "pt": "Já existe uma rotina chamada «{name}»; não foi criada outra nem alterada a que "
        "existe. read_routines mostra as rotinas guardadas; use outro nome para uma nova.",
        "en": "There is already a routine named '{name}'; no other was created and the existing "
        "one was not changed. read_routines shows the saved routines; use another name for a "
        "new one.",
    },
    "unknown_meal": {
        "es": "«{value}» no es una comida del día: usa {meals}",
        "pt": "«{value}» não é uma refeição do dia: use {meals}",
        "en": "'{value}' is not a meal of the day: use {meals}",
    },
    "unknown_food": {
        "es": "no hay ningún alimento con el id «{value}»; «gymnasia foods search» encuentra los "
        "ids",
        "pt": "não há nenhum alimento com o id «{value}»; «gymnasia foods search» encontra os ids",
        "en": "there is no food with the id '{value}'; 'gymnasia foods search' finds ids",
    },
    "bad_grams": {
        "es": "cantidad no válida «{value}»: indica entre 1 y 5000 gramos",
        "pt": "quantidade inválida «{value}»: indique entre 1 e 5000 gramas",
        "en": "invalid amount '{value}': give 1 to 5000 grams",
    },
    "bad_number": {
        "es": "valor no válido «{value}» para {option}: usa un número entre {low} y {high}",
        "pt": "valor inválido «{value}» para {option}: use um número entre {low} e {high}",
        "en": "invalid value '{value}' for {option}: use a number from {low} to {high}",
    },
    "bad_choice": {
        "es": "valor no válido «{value}» para {option}: usa {choices}",
        "pt": "valor inválido «{value}» para {option}: use {choices}",
        "en": "invalid value '{value}' for {option}: use {choices}",
    },
    "meal_added": {
        "es": "anotado: {grams} g de {food} en {meal} del {date} ({meal} suma ahora {kcal} kcal)",
        "pt": "registado: {grams} g de {food} em {meal} de {date} ({meal} soma agora {kcal} kcal)",
        "en": "logged: {grams} g of {food} in {meal} on {date} ({meal} now totals {kcal} kcal)",
    },
    "nutrients": {
        "es": "{energy_kcal} kcal, proteínas {protein_g} g, hidratos {carbs_g} g, grasas "
        "{fat_g} g, fibra {fiber_g} g",
        "pt": "{energy_kcal} kcal, proteínas {protein_g} g, hidratos {carbs_g} g, gorduras "
        "{fat_g} g, fibra {fiber_g} g",
        "en": "{energy_kcal} kcal, protein {protein_g} g, carbs {carbs_g} g, fat {fat_g} g, "
        "fiber {fiber_g} g",
    },
    "meal_empty": {
        "es": "nada anotado",
        "pt": "nada registado",
        "en": "nothing logged",
    },
    "day_total": {
        "es": "total del día",
        "pt": "total do dia",
        "en": "day total",
    },
    "no_routines": {
        "es": "no hay rutinas guardadas",
        "pt": "não há rotinas guardadas",
        "en": "there are no saved routines",
    },
    "nothing_found": {
        "es": "no se ha encontrado nada",
        "pt": "nada encontrado",
        "en": "nothing found",
    },
    # -- feature requests (create_feature_issue) -----------------------------------------------
    "feedback_not_configured": {
        "es": "Las sugerencias no están configuradas: hace falta GYMNASIA_FEEDBACK_REPO "
        "(propietario/repositorio) y GITHUB_TOKEN (un token que pueda crear issues). No se ha "
        "enviado nada; pide a la persona que los configure.",
        "pt": "As sugestões não estão configuradas: é preciso GYMNASIA_FEEDBACK_REPO "
        "(proprietário/repositório) e GITHUB_TOKEN (um token que possa criar issues). Nada foi "
        "enviado; peça à pessoa que os configure.",
        "en": "Feature requests are not configured: GYMNASIA_FEEDBACK_REPO (owner/name) and "
        "GITHUB_TOKEN (a token that can create issues) are needed. Nothing was sent; ask the "
        "person to configure them.",
    },
    "feedback_access": {
        "es": "GitHub no ha permitido crear la issue en {repo} (HTTP {status}); no se ha creado "
        "nada. Hay que configurar el token (GITHUB_TOKEN, con permiso para crear issues) o el "
        "repositorio (GYMNASIA_FEEDBACK_REPO).",
        "pt": "O GitHub não permitiu criar a issue em {repo} (HTTP {status}); nada foi criado. "
        "É preciso configurar o token (GITHUB_TOKEN, com permissão para criar issues) ou o "
        "repositório (GYMNASIA_FEEDBACK_REPO).",
        "en": "GitHub did not allow creating the issue in {repo} (HTTP {status}); nothing was "
        "created. The token (GITHUB_TOKEN, allowed to create issues) or the repository "
        "(GYMNASIA_FEEDBACK_REPO) needs configuring.",
    },
    "feedback_rejected": {
        "es": "GitHub ha rechazado la issue como no válida; no se ha creado nada. Puede "
        "funcionar con otro título o descripción.",
        "pt": "O GitHub rejeitou a issue como inválida; nada foi criado. Pode funcionar com "
        "outro título ou descrição.",
        "en": "GitHub rejected the issue as invalid; nothing was created. Another title or "
        "description may work.",
    },
    "feedback_rate_limited": {
        "es": "GitHub está limitando las peticiones ahora mismo; no se ha creado nada. Se puede "
        "intentar más tarde.",
        "pt": "O GitHub está a limitar os pedidos neste momento; nada foi criado. Pode tentar-se "
        "mais tarde.",
        "en": "GitHub is rate-limiting requests right now; nothing was created. It can be tried "
        "again later.",
    },
    "feedback_refused": {
        "es": "GitHub no ha aceptado la petición (HTTP {status}); no se ha creado nada.",
        "pt": "O GitHub não aceitou o pedido (HTTP {status}); nada foi criado.",
        "en": "GitHub did not accept the request (HTTP {status}); nothing was created.",
    },
    "feedback_unreachable": {
        "es": "No se ha podido conectar con GitHub, así que no se ha enviado nada y no se ha "
        "creado ninguna issue.",
        "pt": "Não foi possível ligar ao GitHub, por isso nada foi enviado e nenhuma issue foi "
        "criada.",
        "en": "GitHub could not be reached, so nothing was sent and no issue was created.",
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
    "feature_created": {
        "es": "He abierto la sugerencia #{number} «{title}»: {url}",
        "pt": "Abri a sugestão #{number} «{title}»: {url}",
        "en": "I opened the feature request #{number} '{title}': {url}",
    },
    "feature_not_created": {
        "es": "No se ha creado la sugerencia ({code}).",
        "pt": "A sugestão não foi criada ({code}).",
        "en": "The feature request was not created ({code}).",
    },
    "offline_help": {
        "es": "El modelo offline (por reglas, sin IA) solo entiende: guardar un peso "
        "(«Guarda mi peso: 77,4 kg el 2020-01-04.»), consultar el peso de una fecha con otra "
        "de respaldo («Consulta mi peso del 2020-01-02. Si no existe, consulta 2020-01-01.»), "
        "consultar una fecha, listar un rango («Lista mis medidas del 2020-01-01 al "
        "2020-01-31.»), guardar una nota («Guarda la nota objetivo: correr 10 km.»), leerla "
        "(«Lee la nota objetivo.»), listar las notas, borrar una nota y sugerir una función "
        "(«Sugiere la función: Modo oscuro. Un tema oscuro para la app.»). Para todo lo demás, "
        "elige un proveedor con --provider.",
        "pt": "O modelo offline (por regras, sem IA) só entende: guardar um peso («Salve meu "
        "peso: 77,4 kg em 2020-01-04.»), consultar o peso de uma data com outra de recurso "
        "(«Consulte meu peso de 2020-01-02. Se não existir, consulte 2020-01-01.»), consultar "
        "uma data, listar um intervalo («Liste minhas medidas de 2020-01-01 a 2020-01-31.»), "
        "guardar uma nota («Salve a nota objetivo: correr 10 km.»), lê-la («Leia a nota "
        "objetivo.»), listar as notas, apagar uma nota e sugerir uma funcionalidade («Sugira "
        "a funcionalidade: Modo escuro. Um tema escuro para a app.»). Para tudo o resto, "
        "escolha um fornecedor com --provider.",
        "en": 'The offline model (rule-based, no AI) only understands: saving a weight ("Save '
        "my weight: 77.4 kg on 2020-01-04.\"), reading one date's weight with a fallback date "
        '("Look up my weight for 2020-01-02. If there is none, look up 2020-01-01."), reading '
        'one date, listing a range ("List my measurements from 2020-01-01 to 2020-01-31."), '
        'saving a note ("Save the note goal: run 10 km."), reading it ("Read the note '
        'goal."), listing notes, deleting a note and suggesting a feature ("Suggest the '
        'feature: Dark mode. A dark theme for the app."). For anything else, choose a '
        "provider with --provider.",
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
    "serve_remote_refused": {
        "es": "--host {host} no es una dirección local: hace falta --allow-remote y "
        "--access-token (o GYMNASIA_ACCESS_TOKEN) para servir tus datos a la red",
        "pt": "--host {host} não é um endereço local: são precisos --allow-remote e "
        "--access-token (ou GYMNASIA_ACCESS_TOKEN) para servir os seus dados à rede",
        "en": "--host {host} is not a loopback address: serving your data to the network "
        "needs --allow-remote and --access-token (or GYMNASIA_ACCESS_TOKEN)",
    },
    "serve_listening": {
        "es": "Gymnasia web en {url} (Ctrl-C para parar)",
        "pt": "Gymnasia web em {url} (Ctrl-C para parar)",
        "en": "Gymnasia web at {url} (Ctrl-C to stop)",
    },
    "serve_token_hint": {
        "es": "Protegido con token: abre {url}?token=<tu token> una vez en el navegador.",
        "pt": "Protegido por token: abra {url}?token=<o seu token> uma vez no navegador.",
        "en": "Token-protected: open {url}?token=<your token> once in the browser.",
    },
    # -- turns that cannot run now ---------------------------------------------------------
    "busy": {
        "es": "La conversación {conversation} está ocupada: otro proceso está atendiendo un "
        "turno en ella (o uno que se interrumpió aún la retiene, como mucho {seconds} s). No se "
        "ha hecho nada; vuelve a intentarlo en un momento.",
        "pt": "A conversa {conversation} está ocupada: outro processo está a tratar de um turno "
        "nela (ou um que foi interrompido ainda a retém, no máximo {seconds} s). Nada foi "
        "feito; tente de novo daqui a pouco.",
        "en": "Conversation {conversation} is busy: another process is running a turn in it "
        "(or one that was interrupted still holds it, for at most {seconds} s). Nothing was "
        "done; try again in a moment.",
    },
    "turn_pending": {
        "es": "La conversación {conversation} tiene un turno sin terminar. Decide la acción "
        "pendiente (gymnasia approvals list) o termínalo con gymnasia resume {conversation}.",
        "pt": "A conversa {conversation} tem um turno por terminar. Decida a ação pendente "
        "(gymnasia approvals list) ou termine-o com gymnasia resume {conversation}.",
        "en": "Conversation {conversation} has an unfinished turn. Decide the pending action "
        "(gymnasia approvals list) or finish it with gymnasia resume {conversation}.",
    },
    "turn_model": {
        "es": "Este turno se empezó con {recorded} y debe seguir con ese modelo, no con {given}.",
        "pt": "Este turno começou com {recorded} e tem de continuar com esse modelo, não com "
        "{given}.",
        "en": "This turn was started on {recorded} and must go on with that model, not {given}.",
    },
    "no_pending_action": {
        "es": "{id}: no hay ninguna acción pendiente con ese identificador para este usuario",
        "pt": "{id}: não há nenhuma ação pendente com esse identificador para este utilizador",
        "en": "{id}: there is no pending action with that id for this user",
    },
    "no_conversation": {
        "es": "{conversation}: no existe esa conversación para este usuario",
        "pt": "{conversation}: essa conversa não existe para este utilizador",
        "en": "{conversation}: there is no such conversation for this user",
    },
}


def t(lang: Lang, name: str, /, **values: object) -> str:
    """Gymnasia text ``name`` in ``lang``."""
    return _T[name][lang].format(**values)


def number(value: float, lang: Lang) -> str:
    """A number as people write it: ``77,4`` in es/pt, ``77.4`` in en; no trailing ``.0``."""
    formatted = f"{value:.2f}".rstrip("0").rstrip(".")
    return formatted if lang == "en" else formatted.replace(".", ",")
