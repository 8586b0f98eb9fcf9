"""Gymnasia's own words (es first, pt, en): tool messages for the model, replies, CLI text; the
``app`` section of ``gymnasia.i18n``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:  # the words load without the harness (``gymnasia --help`` needs only them)
    from surefoot import Lang

from .i18n import day, entry, number, quantity, register

APP_NAME: Final = "Gymnasia"

_T: Final[dict[str, dict[Lang, str]]] = {
    "measurement_not_found": {
        "es": "No existe un registro de medidas para el {date}. Esto no dice nada sobre otras "
        "fechas.",
        "pt": "Não existe um registro de medidas para {date}. Isto não diz nada sobre outras "
        "datas.",
        "en": "There is no measurement record for {date}. This says nothing about other dates.",
    },
    "memory_not_found": {
        "es": "No hay ninguna nota guardada con la clave «{key}». Esto no dice nada sobre otras "
        "claves; list_memory_keys las muestra todas.",
        "pt": "Não há nenhuma nota salva com a chave «{key}». Isto não diz nada sobre outras "
        "chaves; list_memory_keys mostra todas.",
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
        "pt": "Não foi indicada nenhuma medida; nada foi salvo. Indique pelo menos um valor "
        "(por exemplo weight_kg).",
        "en": "No measurement was given; nothing was saved. Give at least one value (for "
        "example weight_kg).",
    },
    # -- diet and training (tools, then data commands) --------------------------------------
    "food_not_found": {
        "es": "No hay ningún alimento con el id «{food_id}» en la tabla de alimentos; no se ha "
        "anotado nada. search_foods encuentra los ids válidos.",
        "pt": "Não há nenhum alimento com o id «{food_id}» na tabela de alimentos; nada foi "
        "registrado. search_foods encontra os ids válidos.",
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
        "existe. read_routines mostra as rotinas salvas; use outro nome para uma nova.",
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
        "pt": "registrado: {grams} g de {food} em {meal} de {date} ({meal} soma agora {kcal} kcal)",
        "en": "logged: {grams} g of {food} in {meal} on {date} ({meal} now totals {kcal} kcal)",
    },
    "nutrients": {
        "es": "{energy_kcal} kcal, proteínas {protein_g} g, hidratos {carbs_g} g, grasas "
        "{fat_g} g, fibra {fiber_g} g",
        "pt": "{energy_kcal} kcal, proteínas {protein_g} g, carboidratos {carbs_g} g, gorduras "
        "{fat_g} g, fibra {fiber_g} g",
        "en": "{energy_kcal} kcal, protein {protein_g} g, carbs {carbs_g} g, fat {fat_g} g, "
        "fiber {fiber_g} g",
    },
    "meal_empty": {
        "es": "nada anotado",
        "pt": "nada registrado",
        "en": "nothing logged",
    },
    "day_total": {
        "es": "total del día",
        "pt": "total do dia",
        "en": "day total",
    },
    "no_routines": {
        "es": "no hay rutinas guardadas",
        "pt": "não há rotinas salvas",
        "en": "there are no saved routines",
    },
    "nothing_found": {
        "es": "no se ha encontrado nada",
        "pt": "nada encontrado",
        "en": "nothing found",
    },
    # -- editing and deleting data, routines, import (tools, then data commands) ----------------
    "measurement_missing": {
        "es": "No existe un registro de medidas para el {date}; no se ha cambiado nada. "
        "list_measurements muestra las fechas guardadas.",
        "pt": "Não existe um registro de medidas para {date}; nada foi alterado. "
        "list_measurements mostra as datas salvas.",
        "en": "There is no measurement record for {date}; nothing was changed. "
        "list_measurements shows the saved dates.",
    },
    "measurement_date_taken": {
        "es": "El {date} ya tiene su propio registro de medidas; no se ha movido nada. Edita ese "
        "registro, o borra uno de los dos antes.",
        "pt": "{date} já tem o seu próprio registro de medidas; nada foi movido. Edite esse "
        "registro, ou exclua um dos dois antes.",
        "en": "{date} already has a measurement record of its own; nothing was moved. Edit that "
        "record, or delete one of the two first.",
    },
    "measurement_would_be_empty": {
        "es": "El registro del {date} se quedaría sin ningún valor; no se ha cambiado nada. "
        "Para quitarlo entero usa delete_measurement.",
        "pt": "O registro de {date} ficaria sem nenhum valor; nada foi alterado. Para o remover "
        "inteiro use delete_measurement.",
        "en": "The record of {date} would be left with no value at all; nothing was changed. To "
        "remove it entirely use delete_measurement.",
    },
    "set_and_clear": {
        "es": "{fields}: no se puede dar un valor y vaciarlo a la vez; no se ha cambiado nada.",
        "pt": "{fields}: não é possível dar um valor e esvaziá-lo ao mesmo tempo; nada foi "
        "alterado.",
        "en": "{fields}: a field cannot be given a value and cleared at once; nothing was changed.",
    },
    "no_changes": {
        "es": "No se ha indicado ningún cambio; no se ha cambiado nada. Indica al menos un "
        "valor nuevo.",
        "pt": "Não foi indicada nenhuma alteração; nada foi alterado. Indique pelo menos um "
        "valor novo.",
        "en": "No change was given; nothing was changed. Give at least one new value.",
    },
    "meal_item_not_found": {
        "es": "No hay ningún alimento anotado con el id {item_id}; no se ha cambiado nada. "
        "read_meal muestra los alimentos de una comida con sus ids (item_id).",
        "pt": "Não há nenhum alimento registrado com o id {item_id}; nada foi alterado. "
        "read_meal mostra os alimentos de uma refeição com os seus ids (item_id).",
        "en": "There is no logged food with the id {item_id}; nothing was changed. read_meal "
        "shows the foods of a meal with their ids (item_id).",
    },
    "food_unknown_change": {
        "es": "No hay ningún alimento con el id «{food_id}» en la tabla de alimentos; no se ha "
        "cambiado nada. search_foods encuentra los ids válidos.",
        "pt": "Não há nenhum alimento com o id «{food_id}» na tabela de alimentos; nada foi "
        "alterado. search_foods encontra os ids válidos.",
        "en": "There is no food with the id '{food_id}' in the food table; nothing was changed. "
        "search_foods finds valid ids.",
    },
    "routine_not_found": {
        "es": "No hay ninguna rutina llamada «{name}»; no se ha cambiado nada. read_routines "
        "muestra las rutinas guardadas.",
        "pt": "Não há nenhuma rotina chamada «{name}»; nada foi alterado. read_routines mostra "
        "as rotinas salvas.",
        "en": "There is no routine named '{name}'; nothing was changed. read_routines shows the "
        "saved routines.",
    },
    "routine_name_taken": {
        "es": "Ya hay otra rutina llamada «{name}»; no se ha renombrado nada. Elige otro nombre.",
        "pt": "Já existe outra rotina chamada «{name}»; nada foi renomeado. Escolha outro nome.",
        "en": "Another routine is already named '{name}'; nothing was renamed. Choose another "
        "name.",
    },
    "exercise_unknown_change": {
        "es": "La tabla de ejercicios no tiene ningún ejercicio con el id «{ids}»; no se ha "
        "cambiado nada. search_exercises encuentra los ids válidos.",
        "pt": "A tabela de exercícios não tem nenhum exercício com o id «{ids}»; nada foi "
        "alterado. search_exercises encontra os ids válidos.",
        "en": "The exercise table has no exercise with the id '{ids}'; nothing was changed. "
        "search_exercises finds valid ids.",
    },
    "routine_position_missing": {
        "es": "La rutina «{name}» tiene {count} ejercicio(s); no hay posición {position}. No se "
        "ha cambiado nada; read_routines muestra los ejercicios en orden.",
        "pt": "A rotina «{name}» tem {count} exercício(s); não há posição {position}. Nada foi "
        "alterado; read_routines mostra os exercícios por ordem.",
        "en": "Routine '{name}' has {count} exercise(s); there is no position {position}. "
        "Nothing was changed; read_routines shows the exercises in order.",
    },
    "routine_order_invalid": {
        "es": "El nuevo orden debe nombrar cada posición actual de la rutina «{name}» (de 1 a "
        "{count}) exactamente una vez; no se ha cambiado nada.",
        "pt": "A nova ordem deve indicar cada posição atual da rotina «{name}» (de 1 a {count}) "
        "exatamente uma vez; nada foi alterado.",
        "en": "The new order must name each current position of routine '{name}' (1 to "
        "{count}) exactly once; nothing was changed.",
    },
    "routine_too_long": {
        "es": "La rutina «{name}» ya tiene {count} ejercicios, el máximo; no se ha añadido nada.",
        "pt": "A rotina «{name}» já tem {count} exercícios, o máximo; nada foi adicionado.",
        "en": "Routine '{name}' already has {count} exercises, the most allowed; nothing was "
        "added.",
    },
    "routine_last_exercise": {
        "es": "«{name}» solo tiene ese ejercicio y una rutina necesita al menos uno; no se ha "
        "quitado nada. Para quitar la rutina entera usa delete_routine.",
        "pt": "«{name}» só tem esse exercício e uma rotina precisa de pelo menos um; nada foi "
        "removido. Para remover a rotina inteira use delete_routine.",
        "en": "'{name}' has only that exercise and a routine needs at least one; nothing was "
        "removed. To remove the whole routine use delete_routine.",
    },
    "updated": {"es": "actualizado", "pt": "atualizado", "en": "updated"},
    "deleted": {"es": "borrado", "pt": "excluído", "en": "deleted"},
    "not_deleted": {
        "es": "no se ha borrado nada",
        "pt": "nada foi excluído",
        "en": "nothing was deleted",
    },
    "ask_delete_measurement": {
        "es": "¿Borrar la medida del {date} ({values})?",
        "pt": "Excluir a medida de {date} ({values})?",
        "en": "Delete the measurement of {date} ({values})?",
    },
    "ask_delete_meal_item": {
        "es": "¿Borrar {grams} g de {food} de {meal} del {date}?",
        "pt": "Excluir {grams} g de {food} de {meal} de {date}?",
        "en": "Delete {grams} g of {food} from {meal} on {date}?",
    },
    "ask_delete_routine": {
        "es": "¿Borrar la rutina «{name}» con sus {count} ejercicio(s)?",
        "pt": "Excluir a rotina «{name}» com os seus {count} exercício(s)?",
        "en": "Delete the routine '{name}' with its {count} exercise(s)?",
    },
    "ask_remove_exercise": {
        "es": "¿Quitar {exercise} (posición {position}) de la rutina «{name}»?",
        "pt": "Remover {exercise} (posição {position}) da rotina «{name}»?",
        "en": "Remove {exercise} (position {position}) from the routine '{name}'?",
    },
    "give_a_value": {
        "es": "indica al menos un valor, p. ej. {example}",
        "pt": "indique pelo menos um valor, p. ex. {example}",
        "en": "give at least one value, e.g. {example}",
    },
    "record_would_be_empty": {
        "es": "el registro del {date} se quedaría sin ningún valor; para quitarlo usa 'gymnasia "
        "measurements delete'",
        "pt": "o registro de {date} ficaria sem nenhum valor; para o remover use 'gymnasia "
        "measurements delete'",
        "en": "the record of {date} would be left with no value; to remove it use 'gymnasia "
        "measurements delete'",
    },
    "bad_routine_name": {
        "es": "nombre de rutina no válido: usa de 1 a 100 caracteres",
        "pt": "nome de rotina inválido: use de 1 a 100 caracteres",
        "en": "invalid routine name: use 1 to 100 characters",
    },
    "no_such_item": {
        "es": "no hay ningún alimento anotado con el id {item_id} ('gymnasia meals show' "
        "muestra los ids)",
        "pt": "não há nenhum alimento registrado com o id {item_id} ('gymnasia meals show' "
        "mostra os ids)",
        "en": "there is no logged food with the id {item_id} ('gymnasia meals show' shows the ids)",
    },
    "bad_item_id": {
        "es": "id no válido «{value}»: usa el número que muestra 'gymnasia meals show'",
        "pt": "id inválido «{value}»: use o número que 'gymnasia meals show' mostra",
        "en": "invalid id '{value}': use the number 'gymnasia meals show' shows",
    },
    "no_such_routine": {
        "es": "no hay ninguna rutina llamada «{name}» ('gymnasia routines list' las muestra)",
        "pt": "não há nenhuma rotina chamada «{name}» ('gymnasia routines list' mostra todas)",
        "en": "there is no routine named '{name}' ('gymnasia routines list' shows them)",
    },
    "routine_taken": {
        "es": "ya hay una rutina llamada «{name}»",
        "pt": "já existe uma rotina chamada «{name}»",
        "en": "there is already a routine named '{name}'",
    },
    "date_taken": {
        "es": "el {date} ya tiene su propio registro de medidas",
        "pt": "{date} já tem o seu próprio registro de medidas",
        "en": "{date} already has a measurement record of its own",
    },
    "unknown_exercise": {
        "es": "no hay ningún ejercicio con el id «{value}»; 'gymnasia exercises search' "
        "encuentra los ids",
        "pt": "não há nenhum exercício com o id «{value}»; 'gymnasia exercises search' "
        "encontra os ids",
        "en": "there is no exercise with the id '{value}'; 'gymnasia exercises search' finds ids",
    },
    "bad_series": {
        "es": "serie no válida «{value}»: usa REPETICIONESxKG/DESCANSO, p. ej. 8x22,5/90 "
        "(1-100 repeticiones, 0-1000 kg, 0-600 s)",
        "pt": "série inválida «{value}»: use REPETIÇÕESxKG/DESCANSO, p. ex. 8x22,5/90 "
        "(1-100 repetições, 0-1000 kg, 0-600 s)",
        "en": "invalid series '{value}': use REPSxKG/REST, e.g. 8x22.5/90 (1-100 reps, "
        "0-1000 kg, 0-600 s)",
    },
    "bad_exercise_spec": {
        "es": "ejercicio no válido «{value}»: usa «ID SERIE...», p. ej. «back_squat 5x100/180 "
        "5x100/180»",
        "pt": "exercício inválido «{value}»: use «ID SÉRIE...», p. ex. «back_squat 5x100/180 "
        "5x100/180»",
        "en": "invalid exercise '{value}': use 'ID SERIES...', e.g. 'back_squat 5x100/180 "
        "5x100/180'",
    },
    "bad_position": {
        "es": "posición no válida «{value}»: la rutina «{name}» tiene {count} ejercicio(s)",
        "pt": "posição inválida «{value}»: a rotina «{name}» tem {count} exercício(s)",
        "en": "invalid position '{value}': routine '{name}' has {count} exercise(s)",
    },
    "bad_order": {
        "es": "orden no válido: nombra cada posición de 1 a {count} una sola vez",
        "pt": "ordem inválida: indique cada posição de 1 a {count} uma única vez",
        "en": "invalid order: name each position from 1 to {count} exactly once",
    },
    "last_exercise": {
        "es": "«{name}» solo tiene ese ejercicio; para quitar la rutina usa 'gymnasia routines "
        "delete'",
        "pt": "«{name}» só tem esse exercício; para remover a rotina use 'gymnasia routines "
        "delete'",
        "en": "'{name}' has only that exercise; to remove the routine use 'gymnasia routines "
        "delete'",
    },
    "routine_saved": {
        "es": "rutina «{name}» guardada: {count} ejercicio(s)",
        "pt": "rotina «{name}» salva: {count} exercício(s)",
        "en": "routine '{name}' saved: {count} exercise(s)",
    },
    "routine_deleted": {
        "es": "rutina «{name}» borrada",
        "pt": "rotina «{name}» excluída",
        "en": "routine '{name}' deleted",
    },
    "import_unreadable": {
        "es": "no se puede leer {file}: {reason}",
        "pt": "não é possível ler {file}: {reason}",
        "en": "cannot read {file}: {reason}",
    },
    "import_malformed": {
        "es": "{file} no es una exportación válida de Gymnasia ({problem}); no se ha importado "
        "nada",
        "pt": "{file} não é uma exportação válida do Gymnasia ({problem}); nada foi importado",
        "en": "{file} is not a valid Gymnasia export ({problem}); nothing was imported",
    },
    "import_not_json": {
        "es": "no es JSON (línea {line})",
        "pt": "não é JSON (linha {line})",
        "en": "not JSON (line {line})",
    },
    "import_duplicate": {
        "es": "{what} «{value}» aparece dos veces",
        "pt": "{what} «{value}» aparece duas vezes",
        "en": "{what} '{value}' appears twice",
    },
    "import_not_regular": {
        "es": "no es un archivo normal (un dispositivo, una FIFO o una carpeta); usa un archivo "
        "que haya escrito «gymnasia export», o «-» para la entrada estándar",
        "pt": "não é um arquivo comum (um dispositivo, uma FIFO ou uma pasta); use um arquivo "
        "escrito por «gymnasia export», ou «-» para a entrada padrão",
        "en": "not a regular file (a device, a FIFO or a folder); use a file 'gymnasia export' "
        "wrote, or '-' for standard input",
    },
    "import_too_large": {
        "es": "ocupa más de {mib} MiB, más de lo que puede ser una exportación; no se ha leído",
        "pt": "tem mais de {mib} MiB, mais do que uma exportação pode ter; não foi lido",
        "en": "it is larger than {mib} MiB, more than an export can be; it was not read",
    },
    "import_unknown_food": {
        "es": "{where}: no hay ningún alimento con el id «{value}» en la tabla de alimentos",
        "pt": "{where}: não há nenhum alimento com o id «{value}» na tabela de alimentos",
        "en": "{where}: there is no food with the id '{value}' in the food table",
    },
    "import_unknown_exercise": {
        "es": "{where}: no hay ningún ejercicio con el id «{value}» en la tabla de ejercicios",
        "pt": "{where}: não há nenhum exercício com o id «{value}» na tabela de exercícios",
        "en": "{where}: there is no exercise with the id '{value}' in the exercise table",
    },
    "import_date_in_future": {
        "es": "{where}: {date} es posterior a hoy ({today})",
        "pt": "{where}: {date} é depois de hoje ({today})",
        "en": "{where}: {date} is after today ({today})",
    },
    "import_date_too_old": {
        "es": "{where}: {date} es anterior a {oldest}, la fecha más antigua que se acepta",
        "pt": "{where}: {date} é anterior a {oldest}, a data mais antiga aceita",
        "en": "{where}: {date} is before {oldest}, the oldest date accepted",
    },
    "import_not_empty": {
        "es": "el usuario «{user}» ya tiene datos; no se ha importado nada (--replace los "
        "sustituye por los del fichero)",
        "pt": "o usuário «{user}» já tem dados; nada foi importado (--replace substitui-os "
        "pelos do arquivo)",
        "en": "user '{user}' already has data; nothing was imported (--replace swaps them for "
        "the file's)",
    },
    "imported": {
        "es": "importado para «{user}»: {measurements} medida(s), {memory} nota(s), {meals} "
        "alimento(s) anotado(s), {routines} rutina(s)",
        "pt": "importado para «{user}»: {measurements} medida(s), {memory} nota(s), {meals} "
        "alimento(s) registrado(s), {routines} rotina(s)",
        "en": "imported for '{user}': {measurements} measurement(s), {memory} note(s), {meals} "
        "logged food(s), {routines} routine(s)",
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
        "pt": "O GitHub está limitando os pedidos neste momento; nada foi criado. Pode tentar-se "
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
        "pt": "Em {date} há um registro, mas sem peso.",
        "en": "On {date} there is a record, but without a weight.",
    },
    "no_record": {
        "es": "No hay registro para el {date}.",
        "pt": "Não há registro para {date}.",
        "en": "No record for {date}.",
    },
    # -- why a call failed, in words (the offline Coach's replies never show a code) ---------
    "why_denied": {"es": "lo rechazaste", "pt": "você recusou", "en": "you declined"},
    "why_unavailable": {
        "es": "el almacenamiento no respondió",
        "pt": "o armazenamento não respondeu",
        "en": "the storage did not answer",
    },
    "why_outcome_unknown": {
        "es": "no se pudo confirmar si terminó",
        "pt": "não foi possível confirmar se terminou",
        "en": "it could not be confirmed whether it finished",
    },
    "why_not_applied": {
        "es": "falló y no se cambió nada",
        "pt": "falhou e nada foi alterado",
        "en": "it failed and nothing changed",
    },
    "why_not_executed": {
        "es": "el turno se detuvo antes",
        "pt": "a conversa parou antes",
        "en": "the turn stopped before it",
    },
    "why_invalid_arguments": {
        "es": "los datos no eran válidos",
        "pt": "os dados não eram válidos",
        "en": "the details were not valid",
    },
    "why_not_found": {"es": "no existe", "pt": "não existe", "en": "it does not exist"},
    "why_conflict": {
        "es": "choca con lo que ya está guardado",
        "pt": "conflita com o que já está salvo",
        "en": "it clashes with what is already saved",
    },
    "why_already_done": {
        "es": "ya estaba hecho",
        "pt": "já estava feito",
        "en": "it was already done",
    },
    "why_not_in_message": {
        "es": "ese dato no estaba en tu mensaje",
        "pt": "esse dado não estava na sua mensagem",
        "en": "that value was not in your message",
    },
    "why_date_in_future": {
        "es": "la fecha es posterior a hoy",
        "pt": "a data é posterior a hoje",
        "en": "the date is after today",
    },
    "why_date_too_old": {
        "es": "la fecha es demasiado antigua",
        "pt": "a data é antiga demais",
        "en": "the date is too far back",
    },
    "why_other": {
        "es": "hubo un problema",
        "pt": "houve um problema",
        "en": "something went wrong",
    },
    "read_failed": {
        "es": "No he podido consultar el {date} ({why}).",
        "pt": "Não consegui consultar {date} ({why}).",
        "en": "I could not look up {date} ({why}).",
    },
    "saved_weight": {
        "es": "Guardado: {weight} kg el {date}.",
        "pt": "Salvo: {weight} kg em {date}.",
        "en": "Saved: {weight} kg on {date}.",
    },
    "save_failed": {
        "es": "No se ha guardado ({why}).",
        "pt": "Não foi salvo ({why}).",
        "en": "It was not saved ({why}).",
    },
    "range_list": {
        "es": "Entre el {start} y el {end} hay {count} registro(s): {items}.",
        "pt": "Entre {start} e {end} há {count} registro(s): {items}.",
        "en": "Between {start} and {end} there are {count} record(s): {items}.",
    },
    "range_empty": {
        "es": "No hay registros entre el {start} y el {end}.",
        "pt": "Não há registros entre {start} e {end}.",
        "en": "There are no records between {start} and {end}.",
    },
    "note_saved": {
        "es": "Nota «{key}» guardada.",
        "pt": "Nota «{key}» salva.",
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
        "pt": "Nota «{key}» excluída.",
        "en": "Note '{key}' deleted.",
    },
    "note_not_deleted": {
        "es": "La nota «{key}» no se ha borrado ({why}).",
        "pt": "A nota «{key}» não foi excluída ({why}).",
        "en": "The note '{key}' was not deleted ({why}).",
    },
    "keys_list": {
        "es": "Notas guardadas: {keys}.",
        "pt": "Notas salvas: {keys}.",
        "en": "Saved notes: {keys}.",
    },
    "keys_empty": {
        "es": "No hay notas guardadas.",
        "pt": "Não há notas salvas.",
        "en": "There are no saved notes.",
    },
    "tool_trouble": {
        "es": "No he podido completarlo ({why}).",
        "pt": "Não consegui concluir ({why}).",
        "en": "I could not complete it ({why}).",
    },
    "feature_created": {
        "es": "He abierto la sugerencia #{number} «{title}»: {url}",
        "pt": "Abri a sugestão #{number} «{title}»: {url}",
        "en": "I opened the feature request #{number} '{title}': {url}",
    },
    "feature_not_created": {
        "es": "No se ha creado la sugerencia ({why}).",
        "pt": "A sugestão não foi criada ({why}).",
        "en": "The feature request was not created ({why}).",
    },
    # -- the offline model: what it understood, and what stops it ------------------------------
    "offline_unclear": {
        "es": "Entiendo que quieres {action}, pero {problem}",
        "pt": "Entendo que quer {action}, mas {problem}",
        "en": "I understand you want to {action}, but {problem}",
    },
    "offline_read_not_saved": {
        "es": "Solo lo he consultado: no he guardado el valor que has dicho. Para guardarlo, "
        "dímelo así: «guarda mi peso: 77,4 kg hoy».",
        "pt": "Só consultei: não salvei o valor que você disse. Para salvá-lo, diga assim: "
        "«salve meu peso: 77,4 kg hoje».",
        "en": "I only looked it up: I have not saved the value you gave. To save it, say it "
        "like 'save my weight: 77.4 kg today'.",
    },
    "offline_nothing_written": {
        "es": "No he guardado ni cambiado nada.",
        "pt": "Não salvei nem alterei nada.",
        "en": "I have not saved or changed anything.",
    },
    "offline_negated": {
        "es": "Entendido: me pides que no lo haga, así que no he guardado ni cambiado nada.",
        "pt": "Entendido: você me pede que não o faça, por isso não salvei nem alterei nada.",
        "en": "Understood: you asked me not to, so I have not saved or changed anything.",
    },
    "offline_action_save_measurement": {
        "es": "guardar medidas",
        "pt": "salvar medidas",
        "en": "save measurements",
    },
    "offline_action_read_measurement": {
        "es": "consultar tus medidas",
        "pt": "consultar as suas medidas",
        "en": "look up your measurements",
    },
    "offline_action_list_measurements": {
        "es": "listar tus medidas",
        "pt": "listar as suas medidas",
        "en": "list your measurements",
    },
    "offline_action_save_note": {
        "es": "guardar una nota",
        "pt": "salvar uma nota",
        "en": "save a note",
    },
    "offline_action_read_note": {
        "es": "leer una nota",
        "pt": "ler uma nota",
        "en": "read a note",
    },
    "offline_action_delete_measurement": {
        "es": "borrar una medición",
        "pt": "excluir uma medição",
        "en": "delete a measurement",
    },
    "offline_measurement_deleted": {
        "es": "Borrado el registro del {date}.",
        "pt": "Excluído o registro de {date}.",
        "en": "The record for {date} is deleted.",
    },
    "offline_measurement_cleared": {
        "es": "Borrado del registro del {date}: {fields}.",
        "pt": "Excluído do registro de {date}: {fields}.",
        "en": "Removed from the record for {date}: {fields}.",
    },
    "offline_measurement_not_deleted": {
        "es": "El registro del {date} no se ha borrado ({why}).",
        "pt": "O registro de {date} não foi excluído ({why}).",
        "en": "The record for {date} was not deleted ({why}).",
    },
    "offline_action_delete_note": {
        "es": "borrar una nota",
        "pt": "excluir uma nota",
        "en": "delete a note",
    },
    "offline_action_read_meal": {
        "es": "consultar lo que comiste",
        "pt": "consultar o que comeu",
        "en": "look up what you ate",
    },
    "offline_action_add_food": {
        "es": "anotar un alimento en una comida",
        "pt": "registrar um alimento numa refeição",
        "en": "log a food in a meal",
    },
    "offline_action_search_foods": {
        "es": "buscar alimentos",
        "pt": "procurar alimentos",
        "en": "search foods",
    },
    "offline_action_search_exercises": {
        "es": "buscar ejercicios",
        "pt": "procurar exercícios",
        "en": "search exercises",
    },
    "offline_action_create_routine": {
        "es": "crear una rutina",
        "pt": "criar uma rotina",
        "en": "create a routine",
    },
    "offline_action_suggest_feature": {
        "es": "sugerir una función",
        "pt": "sugerir uma funcionalidade",
        "en": "suggest a feature",
    },
    "offline_action_several": {
        "es": "hacer varias cosas en un mensaje",
        "pt": "fazer várias coisas numa mensagem",
        "en": "do several things in one message",
    },
    "offline_problem_number_ambiguous": {
        "es": "«{subject}» puede leerse con separador de miles o con decimales. Escribe el "
        "número sin separador de miles (por ejemplo 77,4 o 1077).",
        "pt": "«{subject}» pode ler-se com separador de milhares ou com decimais. Escreva o "
        "número sem separador de milhares (por exemplo 77,4 ou 1077).",
        "en": "'{subject}' could have a thousands separator or decimals. Write the number "
        "without a thousands separator (for example 77.4 or 1077).",
    },
    "offline_problem_number_malformed": {
        "es": "no puedo leer «{subject}» como un único número. Escribe un solo valor, como 77,4.",
        "pt": "não consigo ler «{subject}» como um único número. Escreva um só valor, como 77,4.",
        "en": "I can't read '{subject}' as one number. Write a single value, like 77.4.",
    },
    "offline_problem_number_negative": {
        "es": "«{subject}» es negativo, y este valor no puede serlo.",
        "pt": "«{subject}» é negativo, e este valor não pode sê-lo.",
        "en": "'{subject}' is negative, and this value can't be.",
    },
    "offline_problem_out_of_range": {
        "es": "«{subject}» está fuera del rango de {field}: de {low} a {high} {unit}.",
        "pt": "«{subject}» está fora do intervalo de {field}: de {low} a {high} {unit}.",
        "en": "'{subject}' is outside the range for {field}: from {low} to {high} {unit}.",
    },
    "offline_problem_date_bad": {
        "es": "«{subject}» no es una fecha válida. Usa AAAA-MM-DD (por ejemplo 2020-01-04), "
        "«hoy» o «ayer».",
        "pt": "«{subject}» não é uma data válida. Use AAAA-MM-DD (por exemplo 2020-01-04), "
        "«hoje» ou «ontem».",
        "en": "'{subject}' is not a valid date. Use YYYY-MM-DD (for example 2020-01-04), "
        "'today' or 'yesterday'.",
    },
    "offline_problem_date_missing": {
        "es": "no sé de qué fecha. Dímela como AAAA-MM-DD, «hoy» o «ayer».",
        "pt": "não sei de que data. Me diga qual, como AAAA-MM-DD, «hoje» ou «ontem».",
        "en": "I don't know which date. Give it as YYYY-MM-DD, 'today' or 'yesterday'.",
    },
    "offline_problem_date_future": {
        "es": "«{subject}» es una fecha futura.",
        "pt": "«{subject}» é uma data futura.",
        "en": "'{subject}' is a date in the future.",
    },
    "offline_problem_date_many": {
        "es": "hay varias fechas ({subject}) y aquí solo puedo usar una.",
        "pt": "há várias datas ({subject}) e aqui só posso usar uma.",
        "en": "there are several dates ({subject}) and I can only use one here.",
    },
    "offline_problem_date_vague": {
        "es": "«{subject}» puede ser más de un día. Dime la fecha, como «ayer» o «2024-03-04».",
        "pt": "«{subject}» pode ser mais de um dia. Diga a data, como «ontem» ou «2024-03-04».",
        "en": "'{subject}' could be more than one day. Tell me the date, like 'yesterday' or "
        "'2024-03-04'.",
    },
    "offline_problem_year_missing": {
        "es": "a «{subject}» le falta el año. Escribe la fecha como AAAA-MM-DD.",
        "pt": "a «{subject}» falta o ano. Escreva a data como AAAA-MM-DD.",
        "en": "'{subject}' has no year. Write the date as YYYY-MM-DD.",
    },
    "offline_problem_unit_missing": {
        "es": "no sé en qué unidad está «{subject}». Añade la unidad ({units}).",
        "pt": "não sei em que unidade está «{subject}». Acrescente a unidade ({units}).",
        "en": "I don't know the unit of '{subject}'. Add the unit ({units}).",
    },
    "offline_problem_unit_wrong": {
        "es": "«{subject}» no está en una unidad de {field} ({units}).",
        "pt": "«{subject}» não está numa unidade de {field} ({units}).",
        "en": "'{subject}' is not in a unit for {field} ({units}).",
    },
    "offline_problem_field_missing": {
        "es": "no sé qué medida es «{subject}». Dila junto a su nombre, como «cintura 82 cm».",
        "pt": "não sei que medida é «{subject}». Diga-a junto ao nome, como «cintura 82 cm».",
        "en": "I don't know which measurement '{subject}' is. Say it with its name, like "
        "'waist 82 cm'.",
    },
    "offline_problem_value_missing": {
        "es": "falta el valor de {field}.",
        "pt": "falta o valor de {field}.",
        "en": "the value for {field} is missing.",
    },
    "offline_problem_value_missing_any": {
        "es": "no veo ningún valor que guardar, como «peso 77,4 kg».",
        "pt": "não vejo nenhum valor para salvar, como «peso 77,4 kg».",
        "en": "I see no value to save, like 'weight 77.4 kg'.",
    },
    "offline_problem_value_many": {
        "es": "hay dos valores distintos para {field}.",
        "pt": "há dois valores diferentes para {field}.",
        "en": "there are two different values for {field}.",
    },
    "offline_problem_negated": {
        "es": "me pides que no lo haga.",
        "pt": "você me pede que não o faça.",
        "en": "you asked me not to.",
    },
    "offline_problem_conditional": {
        "es": "el modelo offline no hace escrituras condicionales («si …, guarda …»). Pídelo sin "
        "condición.",
        "pt": "o modelo offline não faz escritas condicionais («se …, salve …»). Peça-o sem "
        "condição.",
        "en": "the offline model does not do conditional writes ('if …, save …'). Ask without "
        "the condition.",
    },
    "offline_problem_value_in_delete": {
        "es": "para borrar no hace falta ningún valor: dime la fecha y, si es solo uno, el campo "
        "(«Borra mi cintura del 2020-01-04.»).",
        "pt": "para excluir não é preciso nenhum valor: diga a data e, se for só um, o campo "
        "(«Exclua a minha cintura de 2020-01-04.»).",
        "en": "deleting needs no value: tell me the date and, for just one field, which one "
        '("Delete my waist from 2020-01-04.").',
    },
    "offline_problem_mixed": {
        "es": "el modelo offline hace una sola cosa por mensaje. Pídemelas de una en una.",
        "pt": "o modelo offline faz uma só coisa por mensagem. Me peça uma de cada vez.",
        "en": "the offline model does one thing per message. Ask for them one at a time.",
    },
    "offline_problem_meal_missing": {
        "es": "no sé en qué comida: {meals}.",
        "pt": "não sei em que refeição: {meals}.",
        "en": "I don't know which meal: {meals}.",
    },
    "offline_problem_meal_ambiguous": {
        "es": "«{subject}» puede ser más de una comida: {meals}.",
        "pt": "«{subject}» pode ser mais de uma refeição: {meals}.",
        "en": "'{subject}' could be more than one meal: {meals}.",
    },
    "offline_problem_meal_many": {
        "es": "has nombrado varias comidas ({subject}) y solo puedo anotar en una.",
        "pt": "nomeou várias refeições ({subject}) e só posso registrar numa.",
        "en": "you named several meals ({subject}) and I can log in only one.",
    },
    "offline_problem_grams_missing": {
        "es": "no sé cuántos gramos. Indica la cantidad en gramos, como «150 g».",
        "pt": "não sei quantos gramas. Indique a quantidade em gramas, como «150 g».",
        "en": "I don't know how many grams. Give the amount in grams, like '150 g'.",
    },
    "offline_problem_food_missing": {
        "es": "no sé qué alimento. Dilo así: «150 g de arroz blanco cocido».",
        "pt": "não sei que alimento. Diga-o assim: «150 g de arroz branco cozido».",
        "en": "I don't know which food. Say it like this: '150 g of white rice, cooked'.",
    },
    "offline_problem_key_missing": {
        "es": "no sé qué nota. Di su clave, como «la nota objetivo».",
        "pt": "não sei que nota. Diga a chave, como «a nota objetivo».",
        "en": "I don't know which note. Give its key, like 'the note goal'.",
    },
    "offline_problem_note_value_missing": {
        "es": "falta el texto de la nota. Escríbelo tras dos puntos: «Guarda la nota objetivo: "
        "correr 10 km.»",
        "pt": "falta o texto da nota. Escreva-o depois de dois pontos: «Salve a nota objetivo: "
        "correr 10 km.»",
        "en": "the note's text is missing. Write it after a colon: 'Save the note goal: run "
        "10 km.'",
    },
    "offline_problem_title_missing": {
        "es": "falta el título. Escríbelo tras dos puntos: «Sugiere la función: Modo oscuro. Un "
        "tema oscuro para la app.»",
        "pt": "falta o título. Escreva-o depois de dois pontos: «Sugira a funcionalidade: Modo "
        "escuro. Um tema escuro para a app.»",
        "en": "the title is missing. Write it after a colon: 'Suggest the feature: Dark mode. A "
        "dark theme for the app.'",
    },
    "offline_problem_routine_name_missing": {
        "es": "falta el nombre de la rutina, como en «Crea la rutina Pierna de fuerza: …».",
        "pt": "falta o nome da rotina, como em «Crie a rotina Pernas de força: …».",
        "en": "the routine's name is missing, as in 'Create the routine Legs for strength: …'.",
    },
    "offline_problem_category_missing": {
        "es": "falta el tipo de rutina: fuerza, hipertrofia, cardio o flexibilidad.",
        "pt": "falta o tipo de rotina: força, hipertrofia, cardio ou flexibilidade.",
        "en": "the kind of routine is missing: strength, hypertrophy, cardio or flexibility.",
    },
    "offline_problem_exercises_missing": {
        "es": "faltan los ejercicios. Escríbelos tras dos puntos, separados por «;», así: "
        "«sentadilla trasera con barra 3x10 con 60 kg, descanso 90 s».",
        "pt": "faltam os exercícios. Escreva-os depois de dois pontos, separados por «;», "
        "assim: «agachamento com barra nas costas 3x10 com 60 kg, descanso 90 s».",
        "en": "the exercises are missing. Write them after a colon, separated by ';', like "
        "this: 'barbell back squat 3x10 with 60 kg, rest 90 s'.",
    },
    "offline_problem_series_missing": {
        "es": "en «{subject}» faltan las series y repeticiones, como 3x10.",
        "pt": "em «{subject}» faltam as séries e repetições, como 3x10.",
        "en": "'{subject}' is missing its sets and reps, like 3x10.",
    },
    "offline_problem_multiplied": {
        "es": "la cantidad depende de algo más ({subject}: raciones, veces o un multiplicador) y "
        "no la calculo por ti. Dime el total en gramos, como «300 g de arroz».",
        "pt": "a quantidade depende de algo a mais ({subject}: porções, vezes ou um "
        "multiplicador) e não faço essa conta por você. Diga o total em gramas, como «300 g de "
        "arroz».",
        "en": "the amount depends on something more ({subject}: servings, times or a multiplier) "
        "and I don't work it out for you. Tell me the total in grams, like '300 g of rice'.",
    },
    "offline_problem_partial": {
        "es": "solo comiste una parte y no calculo cuánto fue. Dime los gramos que comiste, como "
        "«75 g de arroz».",
        "pt": "você comeu só uma parte e não calculo quanto foi. Diga os gramas que comeu, como "
        "«75 g de arroz».",
        "en": "you ate only part of it and I don't work out how much. Tell me the grams you ate, "
        "like '75 g of rice'.",
    },
    "offline_problem_not_yours_meal": {
        "es": "parece la comida de otra persona, y tu diario es solo tuyo. Dime lo que comiste tú.",
        "pt": "parece a refeição de outra pessoa, e o seu diário é só seu. Diga o que você comeu.",
        "en": "that looks like someone else's meal, and your diary is only yours. Tell me what "
        "you ate.",
    },
    "offline_problem_load_qualified": {
        "es": "en «{subject}» la carga es por lado, por mano o con o sin la barra, y no la "
        "convierto en un total. Dime la carga total, como «con 60 kg».",
        "pt": "em «{subject}» a carga é por lado, por mão ou com ou sem a barra, e não a "
        "converto em um total. Diga a carga total, como «com 60 kg».",
        "en": "in '{subject}' the load is per side, per hand or with or without the bar, and I "
        "don't turn it into a total. Tell me the total load, like 'with 60 kg'.",
    },
    "offline_problem_number_extra": {
        "es": "no sé qué es «{subject}» (¿dos mancuernas, otra serie?). Dime cada ejercicio como "
        "«3x10 con 60 kg, descanso 90 s», con la carga total.",
        "pt": "não sei o que é «{subject}» (dois halteres, outra série?). Diga cada exercício "
        "como «3x10 com 60 kg, descanso 90 s», com a carga total.",
        "en": "I don't know what '{subject}' is (two dumbbells, another set?). Give each "
        "exercise like '3x10 with 60 kg, rest 90 s', with the total load.",
    },
    "offline_problem_load_missing": {
        "es": "en «{subject}» falta la carga, como «con 60 kg» o «peso corporal».",
        "pt": "em «{subject}» falta a carga, como «com 60 kg» ou «peso corporal».",
        "en": "'{subject}' is missing its load, like 'with 60 kg' or 'bodyweight'.",
    },
    "offline_problem_rest_missing": {
        "es": "en «{subject}» falta el descanso en segundos o minutos, como «descanso 90 s».",
        "pt": "em «{subject}» falta o descanso em segundos ou minutos, como «descanso 90 s».",
        "en": "'{subject}' is missing its rest in seconds or minutes, like 'rest 90 s'.",
    },
    "offline_problem_filter_unsupported": {
        "es": "no puedo buscar por «{subject}»: la búsqueda filtra por calorías máximas y "
        "proteína mínima, y ordena por menos calorías, hidratos o grasa, o por más proteína o "
        "fibra.",
        "pt": "não consigo procurar por «{subject}»: a pesquisa filtra por calorias máximas e "
        "proteína mínima, e ordena por menos calorias, carboidratos ou gordura, ou por mais "
        "proteína ou fibra.",
        "en": "I can't search by '{subject}': the search filters by maximum calories and minimum "
        "protein, and sorts by fewest calories, carbs or fat, or by most protein or fiber.",
    },
    "offline_problem_not_measured": {
        "es": "eso parece un cambio o un objetivo, no una medida tomada. Dime el valor medido, "
        "como «peso 77,4 kg hoy».",
        "pt": "isso parece uma mudança ou um objetivo, não uma medida tirada. Diga o valor "
        "medido, como «peso 77,4 kg hoje».",
        "en": "that looks like a change or a goal, not a measured value. Tell me the value you "
        "measured, like 'weight 77.4 kg today'.",
    },
    "offline_problem_not_yours": {
        "es": "eso parece el peso de un ejercicio, de otra persona, de un animal o de un objeto, "
        "no una medida tuya. Dime tu valor medido, como «peso 77,4 kg hoy».",
        "pt": "isso parece o peso de um exercício, de outra pessoa, de um animal ou de um "
        "objeto, não uma medida sua. Diga o seu valor medido, como «peso 77,4 kg hoje».",
        "en": "that looks like the weight of a lift, another person, an animal or an object, "
        "not your own measurement. Tell me your measured value, like 'weight 77.4 kg today'.",
    },
    "offline_problem_not_stated": {
        "es": "el mensaje lleva una negación («no», «nunca», «ni»…), así que no lo tomo como una "
        "medida. Dime el valor medido, como «peso 77,4 kg hoy».",
        "pt": "a mensagem tem uma negação («não», «nunca», «nem»…), por isso não a tomo como uma "
        "medida. Diga o valor medido, como «peso 77,4 kg hoje».",
        "en": "the message has a negation ('not', 'never', 'no'…), so I do not take it as a "
        "measurement. Tell me the value you measured, like 'weight 77.4 kg today'.",
    },
    "offline_problem_intention": {
        "es": "eso parece un deseo o una intención, no algo ya medido o comido. Dímelo como un "
        "hecho, como «peso 77,4 kg hoy» o «hoy comí 150 g de arroz en la cena».",
        "pt": "isso parece um desejo ou uma intenção, não algo já medido ou comido. Diga-o como "
        "um fato, como «peso 77,4 kg hoje» ou «hoje comi 150 g de arroz no jantar».",
        "en": "that looks like a wish or a plan, not something measured or eaten. Tell me it as "
        "a fact, like 'weight 77.4 kg today' or 'today I ate 150 g of rice at dinner'.",
    },
    "offline_units_weight": {"es": "kg o lb", "pt": "kg ou lb", "en": "kg or lb"},
    "offline_units_length": {"es": "cm, m o in", "pt": "cm, m ou in", "en": "cm, m or in"},
    "offline_units_percent": {"es": "%", "pt": "%", "en": "%"},
    # -- the offline model: names of values ---------------------------------------------------
    "offline_field_weight_kg": {"es": "peso", "pt": "peso", "en": "weight"},
    "offline_field_body_fat_pct": {
        "es": "grasa corporal",
        "pt": "gordura corporal",
        "en": "body fat",
    },
    "offline_field_neck_cm": {"es": "cuello", "pt": "pescoço", "en": "neck"},
    "offline_field_chest_cm": {"es": "pecho", "pt": "peito", "en": "chest"},
    "offline_field_waist_cm": {"es": "cintura", "pt": "cintura", "en": "waist"},
    "offline_field_hips_cm": {"es": "cadera", "pt": "quadril", "en": "hips"},
    "offline_field_biceps_cm": {"es": "bíceps", "pt": "bíceps", "en": "biceps"},
    "offline_field_quadriceps_cm": {"es": "cuádriceps", "pt": "quadríceps", "en": "quadriceps"},
    "offline_field_calf_cm": {"es": "gemelo", "pt": "panturrilha", "en": "calf"},
    "offline_field_height_cm": {"es": "altura", "pt": "altura", "en": "height"},
    "offline_field_grams": {"es": "cantidad", "pt": "quantidade", "en": "amount"},
    "offline_field_sets": {"es": "series", "pt": "séries", "en": "sets"},
    "offline_field_reps": {"es": "repeticiones", "pt": "repetições", "en": "repetitions"},
    "offline_field_load": {"es": "carga", "pt": "carga", "en": "load"},
    "offline_field_rest": {"es": "descanso", "pt": "descanso", "en": "rest"},
    "offline_field_max_calories": {
        "es": "calorías máximas",
        "pt": "calorias máximas",
        "en": "maximum calories",
    },
    "offline_field_min_protein": {
        "es": "proteína mínima",
        "pt": "proteína mínima",
        "en": "minimum protein",
    },
    "offline_category_strength": {"es": "fuerza", "pt": "força", "en": "strength"},
    "offline_category_hypertrophy": {"es": "hipertrofia", "pt": "hipertrofia", "en": "hypertrophy"},
    "offline_category_cardio": {"es": "cardio", "pt": "cardio", "en": "cardio"},
    "offline_category_flexibility": {
        "es": "flexibilidad",
        "pt": "flexibilidade",
        "en": "flexibility",
    },
    # -- the bundled tables' kinds, as listings show them ---------------------------------------
    "food_category_cereals": {"es": "cereales", "pt": "cereais", "en": "cereals"},
    "food_category_dairy": {"es": "lácteos", "pt": "laticínios", "en": "dairy"},
    "food_category_drinks": {"es": "bebidas", "pt": "bebidas", "en": "drinks"},
    "food_category_eggs": {"es": "huevos", "pt": "ovos", "en": "eggs"},
    "food_category_fats_oils": {
        "es": "grasas y aceites",
        "pt": "gorduras e óleos",
        "en": "fats and oils",
    },
    "food_category_fish": {"es": "pescado", "pt": "peixe", "en": "fish"},
    "food_category_fruits": {"es": "frutas", "pt": "frutas", "en": "fruits"},
    "food_category_legumes": {"es": "legumbres", "pt": "leguminosas", "en": "legumes"},
    "food_category_meat": {"es": "carne", "pt": "carne", "en": "meat"},
    "food_category_nuts_seeds": {
        "es": "frutos secos y semillas",
        "pt": "castanhas e sementes",
        "en": "nuts and seeds",
    },
    "food_category_prepared": {
        "es": "platos preparados",
        "pt": "pratos prontos",
        "en": "prepared dishes",
    },
    "food_category_sweets": {"es": "dulces", "pt": "doces", "en": "sweets"},
    "food_category_vegetables": {"es": "verduras", "pt": "verduras e legumes", "en": "vegetables"},
    "muscle_back": {"es": "espalda", "pt": "costas", "en": "back"},
    "muscle_biceps": {"es": "bíceps", "pt": "bíceps", "en": "biceps"},
    "muscle_calves": {"es": "gemelos", "pt": "panturrilhas", "en": "calves"},
    "muscle_cardio": {"es": "cardio", "pt": "cardio", "en": "cardio"},
    "muscle_chest": {"es": "pecho", "pt": "peito", "en": "chest"},
    "muscle_core": {"es": "core", "pt": "core", "en": "core"},
    "muscle_full_body": {"es": "cuerpo entero", "pt": "corpo inteiro", "en": "full body"},
    "muscle_glutes": {"es": "glúteos", "pt": "glúteos", "en": "glutes"},
    "muscle_hamstrings": {"es": "isquiotibiales", "pt": "posteriores da coxa", "en": "hamstrings"},
    "muscle_quadriceps": {"es": "cuádriceps", "pt": "quadríceps", "en": "quadriceps"},
    "muscle_shoulders": {"es": "hombros", "pt": "ombros", "en": "shoulders"},
    "muscle_triceps": {"es": "tríceps", "pt": "tríceps", "en": "triceps"},
    "equipment_band": {"es": "banda elástica", "pt": "faixa elástica", "en": "band"},
    "equipment_barbell": {"es": "barra", "pt": "barra", "en": "barbell"},
    "equipment_bodyweight": {"es": "peso corporal", "pt": "peso corporal", "en": "bodyweight"},
    "equipment_cable": {"es": "polea", "pt": "polia", "en": "cable"},
    "equipment_cardio_machine": {
        "es": "máquina de cardio",
        "pt": "aparelho de cardio",
        "en": "cardio machine",
    },
    "equipment_dumbbell": {"es": "mancuernas", "pt": "halteres", "en": "dumbbell"},
    "equipment_kettlebell": {"es": "pesa rusa", "pt": "kettlebell", "en": "kettlebell"},
    "equipment_machine": {"es": "máquina", "pt": "máquina", "en": "machine"},
    "difficulty_beginner": {"es": "principiante", "pt": "iniciante", "en": "beginner"},
    "difficulty_intermediate": {"es": "intermedio", "pt": "intermediário", "en": "intermediate"},
    "difficulty_advanced": {"es": "avanzado", "pt": "avançado", "en": "advanced"},
    # -- the offline model: replies about data ------------------------------------------------
    "offline_measurement_on": {
        "es": "El {date} hay: {values}.",
        "pt": "Em {date} há: {values}.",
        "en": "On {date} there is: {values}.",
    },
    "offline_fields_absent": {
        "es": "El {date} hay un registro, pero sin {fields}.",
        "pt": "Em {date} há um registro, mas sem {fields}.",
        "en": "On {date} there is a record, but without {fields}.",
    },
    "offline_saved_fields": {
        "es": "Guardado el {date}: {values}.",
        "pt": "Salvo em {date}: {values}.",
        "en": "Saved on {date}: {values}.",
    },
    "offline_meals_on": {
        "es": "El {date}, {meals}.",
        "pt": "Em {date}, {meals}.",
        "en": "On {date}, {meals}.",
    },
    "offline_meals_empty": {
        "es": "No hay nada anotado el {date}.",
        "pt": "Não há nada registrado em {date}.",
        "en": "Nothing is logged on {date}.",
    },
    "offline_meal_line": {
        "es": "{meal}: {items} ({kcal} kcal)",
        "pt": "{meal}: {items} ({kcal} kcal)",
        "en": "{meal}: {items} ({kcal} kcal)",
    },
    "offline_meal_item": {
        "es": "{grams} g de {food}",
        "pt": "{grams} g de {food}",
        "en": "{grams} g of {food}",
    },
    "offline_food_added": {
        "es": "Anotado: {grams} g de {food} en {meal} del {date}; {meal} suma ahora {kcal} kcal.",
        "pt": "Registrado: {grams} g de {food} em {meal} de {date}; {meal} soma agora {kcal} kcal.",
        "en": "Logged: {grams} g of {food} in {meal} on {date}; {meal} now totals {kcal} kcal.",
    },
    "offline_food_not_added": {
        "es": "No se ha anotado ({why}).",
        "pt": "Não foi registrado ({why}).",
        "en": "It was not logged ({why}).",
    },
    "offline_food_choose": {
        "es": "Hay varios alimentos para «{query}»: {options}. Dime cuál, con su nombre "
        "completo. No he anotado nada.",
        "pt": "Há vários alimentos para «{query}»: {options}. Diga qual, com o nome completo. "
        "Não registrei nada.",
        "en": "Several foods match '{query}': {options}. Tell me which one, by its full name. I "
        "have not logged anything.",
    },
    "offline_food_none": {
        "es": "No encuentro «{query}» en la tabla de alimentos. No he anotado nada.",
        "pt": "Não encontro «{query}» na tabela de alimentos. Não registrei nada.",
        "en": "I can't find '{query}' in the food table. I have not logged anything.",
    },
    "offline_foods_found": {
        "es": "Alimentos ({shown} de {total}), por 100 g: {items}.",
        "pt": "Alimentos ({shown} de {total}), por 100 g: {items}.",
        "en": "Foods ({shown} of {total}), per 100 g: {items}.",
    },
    "offline_food_item": {
        "es": "{name}: {kcal} kcal, {amount} g de {nutrient}",
        "pt": "{name}: {kcal} kcal, {amount} g de {nutrient}",
        "en": "{name}: {kcal} kcal, {amount} g {nutrient}",
    },
    "offline_nutrient_protein": {"es": "proteína", "pt": "proteína", "en": "protein"},
    "offline_nutrient_carbs": {"es": "hidratos", "pt": "carboidratos", "en": "carbs"},
    "offline_nutrient_fat": {"es": "grasa", "pt": "gordura", "en": "fat"},
    "offline_nutrient_fiber": {"es": "fibra", "pt": "fibra", "en": "fiber"},
    "offline_foods_none": {
        "es": "Ningún alimento de la tabla cumple esa búsqueda.",
        "pt": "Nenhum alimento da tabela corresponde a essa pesquisa.",
        "en": "No food in the table matches that search.",
    },
    "offline_exercises_found": {
        "es": "Ejercicios ({shown} de {total}): {items}.",
        "pt": "Exercícios ({shown} de {total}): {items}.",
        "en": "Exercises ({shown} of {total}): {items}.",
    },
    "offline_exercises_none": {
        "es": "Ningún ejercicio de la tabla cumple esa búsqueda.",
        "pt": "Nenhum exercício da tabela corresponde a essa pesquisa.",
        "en": "No exercise in the table matches that search.",
    },
    "offline_exercise_choose": {
        "es": "Hay varios ejercicios para «{query}»: {options}. Dime cuál, con su nombre "
        "completo. No he creado la rutina.",
        "pt": "Há vários exercícios para «{query}»: {options}. Diga qual, com o nome completo. "
        "Não criei a rotina.",
        "en": "Several exercises match '{query}': {options}. Tell me which one, by its full "
        "name. I have not created the routine.",
    },
    "offline_exercise_none": {
        "es": "No encuentro «{query}» en la tabla de ejercicios. No he creado la rutina.",
        "pt": "Não encontro «{query}» na tabela de exercícios. Não criei a rotina.",
        "en": "I can't find '{query}' in the exercise table. I have not created the routine.",
    },
    "offline_routines_list": {
        "es": "Tus rutinas: {items}.",
        "pt": "As suas rotinas: {items}.",
        "en": "Your routines: {items}.",
    },
    "offline_routines_none": {
        "es": "No tienes rutinas guardadas.",
        "pt": "Não tem rotinas salvas.",
        "en": "You have no saved routines.",
    },
    "offline_routine_item": {
        "es": "{name} {sets}x{reps} con {load} kg, descanso {rest} s",
        "pt": "{name} {sets}x{reps} com {load} kg, descanso {rest} s",
        "en": "{name} {sets}x{reps} with {load} kg, rest {rest} s",
    },
    "offline_routine_item_bodyweight": {
        "es": "{name} {sets}x{reps} con peso corporal, descanso {rest} s",
        "pt": "{name} {sets}x{reps} com peso corporal, descanso {rest} s",
        "en": "{name} {sets}x{reps} with bodyweight, rest {rest} s",
    },
    "offline_routine_created": {
        "es": "Rutina «{name}» creada ({category}): {exercises}.",
        "pt": "Rotina «{name}» criada ({category}): {exercises}.",
        "en": "Routine '{name}' created ({category}): {exercises}.",
    },
    "offline_routine_not_created": {
        "es": "No se ha creado la rutina ({why}).",
        "pt": "A rotina não foi criada ({why}).",
        "en": "The routine was not created ({why}).",
    },
    "offline_tool_missing": {
        "es": "Esta sesión no ofrece la herramienta {tool}, así que no he hecho nada.",
        "pt": "Esta sessão não oferece a ferramenta {tool}, por isso não fiz nada.",
        "en": "This session does not offer the tool {tool}, so I have not done anything.",
    },
    "offline_help": {
        "es": "El modelo offline (por reglas, sin IA) solo entiende peticiones sencillas, una por "
        "mensaje, con fechas AAAA-MM-DD, «hoy» o «ayer»: guardar medidas («Guarda mi peso: "
        "77,4 kg el 2020-01-04.»; también grasa corporal, cuello, pecho, cintura, cadera, "
        "bíceps, cuádriceps, gemelo y altura, en kg, lb, %, cm, m o in), consultar el peso "
        "de una fecha con otra de respaldo («Consulta mi peso del 2020-01-02. Si no existe, "
        "consulta 2020-01-01.»), consultar una fecha, listar un rango («Lista mis medidas "
        "del 2020-01-01 al 2020-01-31.»), guardar una nota («Guarda la nota objetivo: correr "
        "10 km.»), leerla («Lee la nota objetivo.»), listar las notas, borrar una nota, "
        "borrar el registro de una fecha («Borra la medición del 2020-01-04.») o solo un "
        "campo («Borra mi cintura del 2020-01-04.»), consultar comidas («¿Qué comí el "
        "2020-01-04?»), anotar un alimento («Añade 150 g de arroz blanco cocido a la comida "
        "de hoy.»), buscar alimentos («Busca alimentos ricos en proteína.») y ejercicios "
        "(«Busca ejercicios de pecho con mancuernas.»), ver tus rutinas, crear una («Crea la "
        "rutina Pierna de fuerza: sentadilla trasera con barra 3x10 con 60 kg, descanso 90 "
        "s.») y sugerir una función («Sugiere la función: Modo oscuro. Un tema oscuro para "
        "la app.»). Para todo lo demás, elige un proveedor con --provider.",
        "pt": "O modelo offline (por regras, sem IA) só entende pedidos simples, um por mensagem, "
        "com datas AAAA-MM-DD, «hoje» ou «ontem»: salvar medidas («Salve meu peso: 77,4 kg "
        "em 2020-01-04.»; também gordura corporal, pescoço, peito, cintura, quadril, bíceps, "
        "quadríceps, panturrilha e altura, em kg, lb, %, cm, m ou in), consultar o peso de uma "
        "data com outra de recurso («Consulte meu peso de 2020-01-02. Se não existir, "
        "consulte 2020-01-01.»), consultar uma data, listar um intervalo («Liste minhas "
        "medidas de 2020-01-01 a 2020-01-31.»), salvar uma nota («Salve a nota objetivo: "
        "correr 10 km.»), lê-la («Leia a nota objetivo.»), listar as notas, excluir uma nota, "
        "excluir o registro de uma data («Exclua a medição de 2020-01-04.») ou só um campo "
        "(«Exclua a minha cintura de 2020-01-04.»), consultar refeições («O que comi em "
        "2020-01-04?»), registrar um alimento («Adicione 150 g de arroz branco cozido ao "
        "almoço de hoje.»), procurar alimentos («Procure alimentos ricos em proteína.») e "
        "exercícios («Procure exercícios de peito com halteres.»), ver as suas rotinas, "
        "criar uma («Crie a rotina Pernas de força: agachamento com barra nas costas 3x10 "
        "com 60 kg, descanso 90 s.») e sugerir uma funcionalidade («Sugira a funcionalidade: "
        "Modo escuro. Um tema escuro para a app.»). Para tudo o resto, escolha um fornecedor "
        "com --provider.",
        "en": "The offline model (rule-based, no AI) only understands simple requests, one per "
        "message, with dates as YYYY-MM-DD, 'today' or 'yesterday': saving measurements "
        '("Save my weight: 77.4 kg on 2020-01-04."; also body fat, neck, chest, waist, hips, '
        "biceps, quadriceps, calf and height, in kg, lb, %, cm, m or in), reading one date's "
        'weight with a fallback date ("Look up my weight for 2020-01-02. If there is none, '
        'look up 2020-01-01."), reading one date, listing a range ("List my measurements '
        'from 2020-01-01 to 2020-01-31."), saving a note ("Save the note goal: run 10 km."), '
        'reading it ("Read the note goal."), listing notes, deleting a note, deleting a '
        'date\'s record ("Delete the measurement of 2020-01-04.") or one field of it ("Delete '
        'my waist from 2020-01-04."), reading meals ("What did I eat on 2020-01-04?"), '
        'logging a food ("Add 150 g of white rice, cooked to lunch today."), searching foods '
        '("Search foods high in protein.") and exercises ("Search chest exercises with '
        'dumbbells."), showing your routines, creating one ("Create the routine Legs for '
        'strength: barbell back squat 3x10 with 60 kg, rest 90 s.") and suggesting a feature '
        '("Suggest the feature: Dark mode. A dark theme for the app."). For anything else, '
        "choose a provider with --provider.",
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
        "pt": "o banco de dados {path} não existe",
        "en": "the database {path} does not exist",
    },
    # -- the database and the configuration, when they cannot be used -------------------
    "store_locked": {
        "es": "la base de datos {url} está bloqueada por otro proceso desde hace demasiado; "
        "no se ha hecho nada: vuelve a intentarlo en un momento",
        "pt": "o banco de dados {url} está bloqueado por outro processo há tempo demais; "
        "nada foi feito: tente de novo daqui a pouco",
        "en": "the database {url} has been locked by another process for too long; nothing "
        "was done: try again in a moment",
    },
    "store_unavailable": {
        "es": "no se puede conectar con la base de datos {url} (o se perdió la conexión); "
        "comprueba que está en marcha y que la dirección y el puerto son correctos",
        "pt": "não é possível conectar ao banco de dados {url} (ou a conexão caiu); verifique "
        "se está em funcionamento e se o endereço e a porta estão corretos",
        "en": "cannot reach the database {url} (or the connection to it was lost); check that "
        "it is running and that the address and port are right",
    },
    "store_not_a_database": {
        "es": "{url} no es una base de datos de Gymnasia: es otro tipo de archivo, una carpeta "
        "o una base de datos dañada",
        "pt": "{url} não é um banco de dados do Gymnasia: é outro tipo de arquivo, uma pasta "
        "ou um banco de dados danificado",
        "en": "{url} is not a Gymnasia database: it is another kind of file, a directory or a "
        "damaged database",
    },
    "store_permission": {
        "es": "no hay permiso para leer o escribir la base de datos {url} (o su carpeta)",
        "pt": "não há permissão para ler ou escrever o banco de dados {url} (ou a sua pasta)",
        "en": "no permission to read or write the database {url} (or its directory)",
    },
    "store_disk_full": {
        "es": "no queda espacio para la base de datos {url}; lo que fallaba no se ha guardado: "
        "libera espacio y vuelve a intentarlo",
        "pt": "não há espaço para o banco de dados {url}; o que falhou não foi salvo: "
        "libere espaço e tente de novo",
        "en": "there is no space left for the database {url}; what failed was not saved: free "
        "some space and try again",
    },
    "store_unsupported_url": {
        "es": "dirección de base de datos no admitida {url}: usa una ruta de archivo, "
        "sqlite:///... o postgresql://...",
        "pt": "endereço de banco de dados não suportado {url}: use um caminho de arquivo, "
        "sqlite:///... ou postgresql://...",
        "en": "unsupported database address {url}: use a file path, sqlite:///... or "
        "postgresql://...",
    },
    "store_misuse": {
        "es": "la base de datos {url} no se pudo usar por un fallo interno de Gymnasia",
        "pt": "o banco de dados {url} não pôde ser usado devido a uma falha interna do Gymnasia",
        "en": "the database {url} could not be used because of an internal Gymnasia failure",
    },
    # -- where to check a write whose outcome is unknown --------------------------------
    "check_cli": {
        "es": "mira «{writes}» (cada escritura y su estado) o «{data}»",
        "pt": "veja «{writes}» (cada escrita e o seu estado) ou «{data}»",
        "en": "see '{writes}' (every write and its state) or '{data}'",
    },
    "check_cli_writes": {
        "es": "mira «{writes}» (cada escritura y su estado)",
        "pt": "veja «{writes}» (cada escrita e o seu estado)",
        "en": "see '{writes}' (every write and its state)",
    },
    "check_web": {
        "es": "mira la página «{page}» (el enlace de abajo)",
        "pt": "veja a página «{page}» (o link abaixo)",
        "en": "see the '{page}' page (the link below)",
    },
    "page_measurements": {"es": "Medidas", "pt": "Medidas", "en": "Measurements"},
    "page_writes": {"es": "Escrituras", "pt": "Escritas", "en": "Writes"},
    # -- delete-data ---------------------------------------------------------------------
    "erase_confirm": {
        "es": "¿Borrar todos los datos de «{user}»? No se puede deshacer.",
        "pt": "Excluir todos os dados de «{user}»? Não pode ser desfeito.",
        "en": "Erase all data of '{user}'? This cannot be undone.",
    },
    "erased": {
        "es": "Borrados todos los datos de «{user}»:",
        "pt": "Excluídos todos os dados de «{user}»:",
        "en": "Erased all data of '{user}':",
    },
    "erased_gym_measurements": {"es": "medidas", "pt": "medidas", "en": "measurements"},
    "erased_gym_memory": {"es": "notas", "pt": "notas", "en": "notes"},
    "erased_gym_goals": {"es": "objetivos", "pt": "metas", "en": "goals"},
    "erased_gym_meal_items": {
        "es": "alimentos anotados en comidas",
        "pt": "alimentos registrados em refeições",
        "en": "foods logged in meals",
    },
    "erased_gym_routines": {"es": "rutinas", "pt": "rotinas", "en": "routines"},
    "erased_routine_exercises": {
        "es": "ejercicios de rutinas",
        "pt": "exercícios de rotinas",
        "en": "routine exercises",
    },
    "erased_routine_series": {
        "es": "series de rutinas",
        "pt": "séries de rotinas",
        "en": "routine sets",
    },
    "erased_conversations": {"es": "conversaciones", "pt": "conversas", "en": "conversations"},
    "erased_messages": {
        "es": "mensajes de conversaciones",
        "pt": "mensagens de conversas",
        "en": "conversation messages",
    },
    "erased_writes": {
        "es": "escrituras registradas",
        "pt": "escritas registradas",
        "en": "recorded writes",
    },
    "erased_approvals": {"es": "confirmaciones", "pt": "confirmações", "en": "confirmations"},
    "erased_diagnostics": {"es": "diagnósticos", "pt": "diagnósticos", "en": "diagnostics"},
    # -- listings with nothing in them -------------------------------------------------------
    "no_measurements_yet": {
        "es": "Aún no hay medidas guardadas.",
        "pt": "Ainda não há medidas salvas.",
        "en": "No measurements saved yet.",
    },
    "no_writes_yet": {
        "es": "El Coach aún no ha intentado ninguna escritura.",
        "pt": "O Coach ainda não tentou nenhuma escrita.",
        "en": "The Coach has not attempted any write yet.",
    },
    "no_diagnostics_yet": {
        "es": "No hay diagnósticos: ninguna herramienta ha fallado.",
        "pt": "Não há diagnósticos: nenhuma ferramenta falhou.",
        "en": "No diagnostics: no tool has failed.",
    },
    "no_approvals_yet": {
        "es": "No hay acciones esperando tu confirmación.",
        "pt": "Não há ações aguardando sua confirmação.",
        "en": "No actions are waiting for your confirmation.",
    },
    "unknown_provider": {
        "es": "proveedor desconocido «{value}»: usa {choices}",
        "pt": "fornecedor desconhecido «{value}»: use {choices}",
        "en": "unknown provider '{value}': use {choices}",
    },
    "no_api_key": {
        "es": "falta la clave de {provider}: define {names} o pasa --api-key",
        "pt": "falta a chave de {provider}: defina {names} ou passe --api-key",
        "en": "no API key for {provider}: set {names} or pass --api-key",
    },
    "bad_base_url": {
        "es": "--base-url «{value}» no es una dirección http:// o https:// con servidor",
        "pt": "--base-url «{value}» não é um endereço http:// ou https:// com servidor",
        "en": "--base-url '{value}' is not an http:// or https:// address with a host",
    },
    "bad_model_config": {
        "es": "la configuración del modelo de {provider} no es válida; revisa --model, "
        "--base-url y la clave",
        "pt": "a configuração do modelo de {provider} não é válida; verifique --model, "
        "--base-url e a chave",
        "en": "the {provider} model configuration is not valid; check --model, --base-url "
        "and the key",
    },
    "cli_no_such_option": {
        "es": "la opción {option} no existe (mira --help)",
        "pt": "a opção {option} não existe (veja --help)",
        "en": "there is no option {option} (see --help)",
    },
    "cli_missing": {
        "es": "falta {name} (mira --help)",
        "pt": "falta {name} (veja --help)",
        "en": "{name} is missing (see --help)",
    },
    "cli_bad_value": {
        "es": "valor no válido para {name} (mira --help)",
        "pt": "valor inválido para {name} (veja --help)",
        "en": "invalid value for {name} (see --help)",
    },
    "cli_extra_args": {
        "es": "sobra algo en la orden: {args} (mira --help)",
        "pt": "há algo a mais no comando: {args} (veja --help)",
        "en": "unexpected extra argument(s): {args} (see --help)",
    },
    "cli_no_such_command": {
        "es": "la orden «{name}» no existe (mira --help)",
        "pt": "o comando «{name}» não existe (veja --help)",
        "en": "there is no command '{name}' (see --help)",
    },
    "cli_no_such_command_near": {
        "es": "la orden «{name}» no existe; ¿querías decir {near}? (mira --help)",
        "pt": "o comando «{name}» não existe; você quis dizer {near}? (veja --help)",
        "en": "there is no command '{name}'; did you mean {near}? (see --help)",
    },
    "bad_lang": {
        "es": "--lang debe ser uno de {choices}",
        "pt": "--lang deve ser um de {choices}",
        "en": "--lang must be one of {choices}",
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
        "pt": "não há registro para {date}",
        "en": "no record for {date}",
    },
    "saved": {
        "es": "guardado",
        "pt": "salvo",
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
    "mcp_remote_refused": {
        "es": "--host {host} no es una dirección local: el servidor MCP solo escucha en "
        "127.0.0.1 o localhost, porque no pide ninguna credencial",
        "pt": "--host {host} não é um endereço local: o servidor MCP só escuta em "
        "127.0.0.1 ou localhost, porque não pede nenhuma credencial",
        "en": "--host {host} is not a loopback address: the MCP server only listens on "
        "127.0.0.1 or localhost, because it asks for no credentials",
    },
    "otel_not_installed": {
        "es": "--otel necesita el extra otel: pip install 'gymnasia[otel]'",
        "pt": "--otel precisa do extra otel: pip install 'gymnasia[otel]'",
        "en": "--otel needs the otel extra: pip install 'gymnasia[otel]'",
    },
    "otel_exporter": {
        "es": "--otel exporta por OTLP/HTTP (http/protobuf) o a la consola, no {value}: "
        "revisa OTEL_TRACES_EXPORTER y OTEL_EXPORTER_OTLP_PROTOCOL",
        "pt": "--otel exporta por OTLP/HTTP (http/protobuf) ou para o console, não {value}: "
        "verifique OTEL_TRACES_EXPORTER e OTEL_EXPORTER_OTLP_PROTOCOL",
        "en": "--otel exports over OTLP/HTTP (http/protobuf) or to the console, not {value}: "
        "check OTEL_TRACES_EXPORTER and OTEL_EXPORTER_OTLP_PROTOCOL",
    },
    "mcp_not_installed": {
        "es": "el servidor MCP necesita el extra mcp: pip install 'gymnasia[mcp]'",
        "pt": "o servidor MCP precisa do extra mcp: pip install 'gymnasia[mcp]'",
        "en": "the MCP server needs the mcp extra: pip install 'gymnasia[mcp]'",
    },
    "mcp_listening": {
        "es": "Herramientas de Gymnasia por MCP en {url} (Ctrl-C para parar)",
        "pt": "Ferramentas do Gymnasia por MCP em {url} (Ctrl-C para parar)",
        "en": "Gymnasia's tools over MCP at {url} (Ctrl-C to stop)",
    },
    "mcp_bad_transport": {
        "es": "--transport debe ser stdio o http, no «{value}»",
        "pt": "--transport deve ser stdio ou http, não «{value}»",
        "en": "--transport must be stdio or http, not '{value}'",
    },
    "mcp_instructions": {
        "es": "Herramientas de Gymnasia sobre los datos del usuario (medidas, dieta, rutinas, "
        "notas). Las fechas son de calendario, AAAA-MM-DD. Un resultado con isError trae en "
        "structuredContent.error un code y una recovery: correct_arguments (corrige la llamada "
        "según details), choose_alternative (prueba otra consulta), stop_turn (no sigas; si es "
        'outcome_unknown, no repitas la escritura). Envía en _meta["surefoot/idempotency-key"] '
        "una clave por escritura y repítela si reintentas: la escritura no se hará dos veces.",
        "pt": "Ferramentas do Gymnasia sobre os dados do usuário (medidas, dieta, rotinas, "
        "notas). As datas são de calendário, AAAA-MM-DD. Um resultado com isError traz em "
        "structuredContent.error um code e uma recovery: correct_arguments (corrija a chamada "
        "segundo details), choose_alternative (tente outra consulta), stop_turn (não continue; "
        "se for outcome_unknown, não repita a escrita). Envie em "
        '_meta["surefoot/idempotency-key"] uma chave por escrita e repita-a se tentar de '
        "novo: a escrita não será feita duas vezes.",
        "en": "Gymnasia's tools over the user's data (measurements, diet, routines, notes). "
        "Dates are calendar dates, YYYY-MM-DD. A result with isError carries a code and a "
        "recovery in structuredContent.error: correct_arguments (fix the call using details), "
        "choose_alternative (try another query), stop_turn (do not go on; for outcome_unknown, "
        "do not repeat the write). Send one key per write in "
        '_meta["surefoot/idempotency-key"] and send it again when you retry: the write will '
        "not happen twice.",
    },
    "serve_token_hint": {
        "es": "Protegido con token: abre {url}?token=<tu token> una vez en el navegador.",
        "pt": "Protegido por token: abra {url}?token=<o seu token> uma vez no navegador.",
        "en": "Token-protected: open {url}?token=<your token> once in the browser.",
    },
    # -- accounts and workers --------------------------------------------------------------
    "serve_dbos_alone": {
        "es": "serve --engine dbos atiende a una sola persona en un solo proceso: no se combina "
        "con cuentas ni con --workers.",
        "pt": "serve --engine dbos atende uma só pessoa em um só processo: não se combina com "
        "contas nem com --workers.",
        "en": "serve --engine dbos serves one person in one process: it does not combine with "
        "accounts or --workers.",
    },
    "serve_workers_sqlite": {
        "es": "--workers {workers} necesita PostgreSQL: un archivo SQLite ({url}) lo sirve un "
        "solo proceso. Usa --workers 1, o --db postgresql://... para varios procesos.",
        "pt": "--workers {workers} precisa de PostgreSQL: um arquivo SQLite ({url}) é servido "
        "por um único processo. Use --workers 1, ou --db postgresql://... para vários processos.",
        "en": "--workers {workers} needs PostgreSQL: a SQLite file ({url}) is served by one "
        "process. Use --workers 1, or --db postgresql://... for several processes.",
    },
    "serve_accounts_hint": {
        "es": "Con cuentas ({count}): cada persona entra con su nombre y su contraseña.",
        "pt": "Com contas ({count}): cada pessoa entra com seu nome e sua senha.",
        "en": "With accounts ({count}): each person signs in with their name and password.",
    },
    "users_bad_name": {
        "es": "«{user}» no sirve como nombre de cuenta: de 1 a 64 letras sin acentos, cifras, "
        "puntos, guiones o guiones bajos, empezando por una letra o una cifra.",
        "pt": "«{user}» não serve como nome de conta: de 1 a 64 letras sem acentos, algarismos, "
        "pontos, hifens ou sublinhados, começando por uma letra ou um algarismo.",
        "en": "'{user}' cannot be an account name: 1 to 64 unaccented letters, digits, dots, "
        "hyphens or underscores, starting with a letter or a digit.",
    },
    "users_exists": {
        "es": "La cuenta «{user}» ya existe; no ha cambiado nada.",
        "pt": "A conta «{user}» já existe; nada mudou.",
        "en": "The account '{user}' exists already; nothing changed.",
    },
    "users_password": {
        "es": "Contraseña para «{user}»",
        "pt": "Senha para «{user}»",
        "en": "Password for '{user}'",
    },
    "users_password_again": {
        "es": "Repite la contraseña",
        "pt": "Repita a senha",
        "en": "The password again",
    },
    "users_password_mismatch": {
        "es": "Las dos contraseñas no coinciden; no se ha creado la cuenta.",
        "pt": "As duas senhas não coincidem; a conta não foi criada.",
        "en": "The two passwords differ; the account was not created.",
    },
    "users_password_short": {
        "es": "La contraseña necesita al menos {min} caracteres; no se ha creado la cuenta.",
        "pt": "A senha precisa de pelo menos {min} caracteres; a conta não foi criada.",
        "en": "The password needs at least {min} characters; the account was not created.",
    },
    "users_added": {
        "es": "Cuenta «{user}» creada. Sus datos son los de --user {user}.",
        "pt": "Conta «{user}» criada. Os dados dela são os de --user {user}.",
        "en": "Account '{user}' created. Its data is that of --user {user}.",
    },
    "users_link": {
        "es": "Enlace de un solo uso (válido {hours} h; quien lo abra elige la contraseña): {url}",
        "pt": "Link de uso único (válido por {hours} h; quem o abrir escolhe a senha): {url}",
        "en": "One-time sign-in link (valid {hours} h; whoever opens it chooses the password): "
        "{url}",
    },
    "users_none": {
        "es": "No hay cuentas: la web sirve a un solo usuario, solo en esta máquina.",
        "pt": "Não há contas: a web serve a um só usuário, só nesta máquina.",
        "en": "There are no accounts: the web app serves one user, on this machine only.",
    },
    # -- turns that cannot run now ---------------------------------------------------------
    "busy": {
        "es": "La conversación {conversation} está ocupada: otro proceso está atendiendo un "
        "turno en ella (o uno que se interrumpió aún la retiene, como mucho {seconds} s). No se "
        "ha hecho nada; vuelve a intentarlo en un momento.",
        "pt": "A conversa {conversation} está ocupada: outro processo está tratando de um turno "
        "nela (ou um que foi interrompido ainda a retém, no máximo {seconds} s). Nada foi "
        "feito; tente de novo daqui a pouco.",
        "en": "Conversation {conversation} is busy: another process is running a turn in it "
        "(or one that was interrupted still holds it, for at most {seconds} s). Nothing was "
        "done; try again in a moment.",
    },
    "busy_interrupted": {
        "es": "Este turno se interrumpió: otro proceso tomó la conversación {conversation} "
        "mientras este estaba detenido, y no ha podido terminarlo. Antes de eso ya había hecho "
        "esto:",
        "pt": "Este turno foi interrompido: outro processo assumiu a conversa {conversation} "
        "enquanto este estava parado, e não conseguiu terminá-lo. Antes disso já tinha feito "
        "isto:",
        "en": "This turn was interrupted: another process took conversation {conversation} "
        "over while this one was stopped, and it could not finish. Before that it had already "
        "done this:",
    },
    "busy_interrupted_end": {
        "es": "No lo pidas otra vez sin comprobar antes tus datos "
        "(gymnasia writes --conversation {conversation}).",
        "pt": "Não peça de novo sem verificar antes os seus dados "
        "(gymnasia writes --conversation {conversation}).",
        "en": "Don't ask for it again before checking your data "
        "(gymnasia writes --conversation {conversation}).",
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
        "pt": "{id}: não há nenhuma ação pendente com esse identificador para este usuário",
        "en": "{id}: there is no pending action with that id for this user",
    },
    "no_conversation": {
        "es": "{conversation}: no existe esa conversación para este usuario",
        "pt": "{conversation}: essa conversa não existe para este usuário",
        "en": "{conversation}: there is no such conversation for this user",
    },
    # -- the rules that guard the data (rules.py) -------------------------------------------
    "rule_record_measurement": {"es": "una medición", "pt": "uma medição", "en": "a measurement"},
    "confirm_clear_fields": {
        "es": "¿Borrar {values} del registro del {date}?",
        "pt": "Excluir {values} do registro de {date}?",
        "en": "Delete {values} from the record of {date}?",
    },
    "rule_record_meal": {"es": "una comida", "pt": "uma refeição", "en": "a meal"},
    "cli_date_in_future": {
        "es": "{date} es posterior a hoy ({today}) y {what} no puede tener una fecha futura; no "
        "se ha guardado nada",
        "pt": "{date} é depois de hoje ({today}) e {what} não pode ter uma data futura; nada foi "
        "salvo",
        "en": "{date} is after today ({today}) and {what} cannot have a future date; nothing was "
        "saved",
    },
    "cli_date_too_old": {
        "es": "{date} es anterior a {oldest} (más de {years} años antes de hoy) y {what} no puede "
        "tener una fecha tan antigua; no se ha guardado nada",
        "pt": "{date} é anterior a {oldest} (mais de {years} anos antes de hoje) e {what} não "
        "pode ter uma data tão antiga; nada foi salvo",
        "en": "{date} is before {oldest} (more than {years} years before today) and {what} "
        "cannot be dated that far back; nothing was saved",
    },
    "cli_unlikely_refused": {
        "es": "no se ha guardado nada, porque hay que confirmarlo: {question} Si es correcto, "
        "repite la orden con --yes.",
        "pt": "nada foi salvo, porque é preciso confirmar: {question} Se estiver certo, repita o "
        "comando com --yes.",
        "en": "nothing was saved, because it needs a confirmation: {question} If it is right, "
        "run the command again with --yes.",
    },
    "cli_not_saved": {
        "es": "no se ha guardado nada",
        "pt": "nada foi salvo",
        "en": "nothing was saved",
    },
    "rule_date_in_future": {
        "es": "No se ha guardado nada: {date} es posterior a hoy ({today}) y {what} no puede "
        "tener una fecha futura. Usa la fecha en que ocurrió, hoy o antes; si la persona no la "
        "ha dicho, pregúntasela.",
        "pt": "Nada foi salvo: {date} é depois de hoje ({today}) e {what} não pode ter uma data "
        "futura. Use a data em que aconteceu, hoje ou antes; se a pessoa não disse, pergunte.",
        "en": "Nothing was saved: {date} is after today ({today}) and {what} cannot have a "
        "future date. Use the date it happened, today or earlier; if the person did not say, "
        "ask them.",
    },
    "rule_date_too_old": {
        "es": "No se ha guardado nada: {date} es anterior a {oldest}, más de {years} años antes de "
        "hoy ({today}), y {what} no puede tener una fecha tan antigua. Comprueba el año con la "
        "persona.",
        "pt": "Nada foi salvo: {date} é anterior a {oldest}, mais de {years} anos antes de hoje "
        "({today}), e {what} não pode ter uma data tão antiga. Confirme o ano com a pessoa.",
        "en": "Nothing was saved: {date} is before {oldest}, more than {years} years before today "
        "({today}), and {what} cannot be dated that far back. Check the year with the person.",
    },
    "rule_goal_date_past": {
        "es": "No se ha guardado el objetivo: su fecha límite ({date}) ya ha pasado (hoy es "
        "{today}). Pide a la persona una fecha de hoy en adelante, o guárdalo sin fecha.",
        "pt": "A meta não foi salva: o prazo ({date}) já passou (hoje é {today}). Peça à pessoa "
        "uma data de hoje em diante, ou salve a meta sem data.",
        "en": "The goal was not saved: its target date ({date}) has passed (today is {today}). "
        "Ask the person for a date from today on, or save it without one.",
    },
    "rule_goal_out_of_range": {
        "es": "No se ha guardado el objetivo: {target} está fuera del rango de {field} ({low} a "
        "{high}).",
        "pt": "A meta não foi salva: {target} está fora da faixa de {field} ({low} a {high}).",
        "en": "The goal was not saved: {target} is outside the range of {field} ({low} to {high}).",
    },
    "rule_confirm_save": {
        "es": "¿Guardar {values} para {when}?",
        "pt": "Salvar {values} para {when}?",
        "en": "Save {values} for {when}?",
    },
    "rule_last_record": {
        "es": "Último registro de {field}: {value} ({when}).",
        "pt": "Último registro de {field}: {value} ({when}).",
        "en": "Last {field} record: {value} ({when}).",
    },
    "rule_unusual_first": {
        "es": "No hay registros anteriores de {field} y lo habitual está entre {low} y {high}.",
        "pt": "Não há registros anteriores de {field} e o habitual fica entre {low} e {high}.",
        "en": "There is no earlier {field} record, and it is usually between {low} and {high}.",
    },
    "rule_today": {"es": "hoy", "pt": "hoje", "en": "today"},
    "rule_yesterday": {"es": "ayer", "pt": "ontem", "en": "yesterday"},
    "rule_for_date": {"es": "el {date}", "pt": "{date}", "en": "{date}"},
    # -- goals ------------------------------------------------------------------------------
    "goal_described": {
        "es": "objetivo de {field}: {target}",
        "pt": "meta de {field}: {target}",
        "en": "{field} goal: {target}",
    },
    "goal_by": {"es": "para el {date}", "pt": "até {date}", "en": "by {date}"},
    "goal_saved": {
        "es": "He guardado tu objetivo: {goal}.",
        "pt": "Salvei sua meta: {goal}.",
        "en": "I saved your goal: {goal}.",
    },
    "goals_empty": {
        "es": "No hay objetivos guardados.",
        "pt": "Não há metas salvas.",
        "en": "There are no saved goals.",
    },
    "goals_header": {"es": "Objetivos", "pt": "Metas", "en": "Goals"},
    "offline_action_save_goal": {
        "es": "guardar un objetivo",
        "pt": "salvar uma meta",
        "en": "save a goal",
    },
    "engine_needs_postgresql": {
        "es": "--engine dbos ejecuta los turnos en DBOS, que guarda su estado en PostgreSQL: "
        "indica una base de datos postgresql://... con --db (o GYMNASIA_DB).",
        "pt": "--engine dbos executa os turnos no DBOS, que guarda o seu estado no PostgreSQL: "
        "indique um banco de dados postgresql://... com --db (ou GYMNASIA_DB).",
        "en": "--engine dbos runs turns on DBOS, which keeps its state in PostgreSQL: give a "
        "postgresql://... database with --db (or GYMNASIA_DB).",
    },
    "engine_not_installed": {
        "es": "--engine dbos necesita el paquete dbos: pip install 'gymnasia[dbos]'.",
        "pt": "--engine dbos precisa do pacote dbos: pip install 'gymnasia[dbos]'.",
        "en": "--engine dbos needs the dbos package: pip install 'gymnasia[dbos]'.",
    },
    "offline_problem_date_old": {
        "es": "«{subject}» es una fecha demasiado antigua.",
        "pt": "«{subject}» é uma data antiga demais.",
        "en": "'{subject}' is too far in the past.",
    },
    # -- the terminal: status lines, approvals in words, storage causes -----------------------
    "status_saved": {"es": "Guardado: {what}", "pt": "Salvo: {what}", "en": "Saved: {what}"},
    "status_deleted": {"es": "Borrado: {what}", "pt": "Excluído: {what}", "en": "Deleted: {what}"},
    "note_described": {"es": "nota «{key}»", "pt": "nota «{key}»", "en": "note '{key}'"},
    "measurement_record_described": {
        "es": "registro de medidas del {date}",
        "pt": "registro de medidas de {date}",
        "en": "measurement record of {date}",
    },
    "status_waiting": {
        "es": "Pendiente de tu aprobación. Para aprobarlo: {approve} · para rechazarlo: {deny}",
        "pt": "Aguardando a sua aprovação. Para aprovar: {approve} · para recusar: {deny}",
        "en": "Waiting for your approval. To approve: {approve} · to deny: {deny}",
    },
    "approve_delete_memory": {
        "es": "¿Borrar la nota «{key}» de tu memoria? No se puede deshacer.",
        "pt": "Excluir a nota «{key}» da sua memória? Não dá para desfazer.",
        "en": "Delete the note '{key}' from your memory? This cannot be undone.",
    },
    "approve_delete_measurement": {
        "es": "¿Borrar el registro de medidas del {date}, con todas sus medidas? No se puede "
        "deshacer.",
        "pt": "Excluir o registro de medidas de {date}, com todas as medidas dele? Não dá para "
        "desfazer.",
        "en": "Delete the measurement record of {date}, with all its measurements? This "
        "cannot be undone.",
    },
    "approve_delete_meal_item": {
        "es": "¿Quitar el alimento n.º {item_id} de tu diario de comidas?",
        "pt": "Remover o alimento nº {item_id} do seu diário de refeições?",
        "en": "Remove food item no. {item_id} from your meal diary?",
    },
    "approve_remove_routine_exercise": {
        "es": "¿Quitar el ejercicio n.º {position} de la rutina «{routine}»?",
        "pt": "Remover o exercício nº {position} da rotina «{routine}»?",
        "en": "Remove exercise no. {position} from the routine '{routine}'?",
    },
    "approve_delete_routine": {
        "es": "¿Borrar la rutina «{routine}» entera, con sus ejercicios? No se puede deshacer.",
        "pt": "Excluir a rotina «{routine}» inteira, com os exercícios dela? Não dá para desfazer.",
        "en": "Delete the whole routine '{routine}', with its exercises? This cannot be undone.",
    },
    "approve_create_feature_issue": {
        "es": "¿Abrir en GitHub una petición pública titulada «{title}»? Cualquiera podrá leerla.",
        "pt": "Abrir no GitHub um pedido público com o título «{title}»? Qualquer pessoa poderá "
        "lê-lo.",
        "en": "Open a public request on GitHub titled '{title}'? Anyone will be able to read it.",
    },
    "approve_add_meal_food": {
        "es": "¿Añadir {grams} g de {food} a: {meal}, {date}?",
        "pt": "Adicionar {grams} g de {food} a: {meal}, {date}?",
        "en": "Add {grams} g of {food} to: {meal}, {date}?",
    },
    "approve_save": {
        "es": "¿Guardar {what}?",
        "pt": "Salvar {what}?",
        "en": "Save {what}?",
    },
    "approve_generic": {
        "es": "¿Hacer «{title}» con {values}?",
        "pt": "Fazer «{title}» com {values}?",
        "en": "Do '{title}' with {values}?",
    },
    "store_io_error": {
        "es": "no se pudo leer o escribir el archivo de la base de datos {url} (error de "
        "entrada/salida: el disco puede estar lleno, desconectado o dañado); lo que fallaba no "
        "se ha guardado",
        "pt": "não foi possível ler ou gravar o arquivo do banco de dados {url} (erro de "
        "entrada/saída: o disco pode estar cheio, desconectado ou danificado); o que falhou não "
        "foi salvo",
        "en": "could not read or write the database file {url} (an input/output error: the "
        "disk may be full, disconnected or damaged); what failed was not saved",
    },
    "store_no_pg_database": {
        "es": "el servidor PostgreSQL {server} no tiene ninguna base de datos «{name}». Créala "
        "con `createdb {name}` (o `CREATE DATABASE {name};` en psql) y vuelve a intentarlo",
        "pt": "o servidor PostgreSQL {server} não tem nenhum banco de dados «{name}». Crie-o "
        "com `createdb {name}` (ou `CREATE DATABASE {name};` no psql) e tente de novo",
        "en": "the PostgreSQL server {server} has no database '{name}'. Create it with "
        "`createdb {name}` (or `CREATE DATABASE {name};` in psql) and try again",
    },
    # --- gymnasia eval --------------------------------------------------------------------
    "eval_unknown_arm": {
        "es": "No existe el brazo «{value}»; usa {choices}.",
        "pt": "Não existe o braço «{value}»; use {choices}.",
        "en": "There is no arm '{value}'; use {choices}.",
    },
    "eval_unknown_task": {
        "es": "No hay ninguna tarea llamada «{value}» (gymnasia eval --list las muestra).",
        "pt": "Não há nenhuma tarefa chamada “{value}” (gymnasia eval --list mostra todas).",
        "en": "There is no task named '{value}' (gymnasia eval --list shows them).",
    },
    "eval_bad_order": {
        "es": "--order no admite «{value}»; usa interleaved o by-arm.",
        "pt": "--order não aceita «{value}»; use interleaved ou by-arm.",
        "en": "--order does not take '{value}'; use interleaved or by-arm.",
    },
    "eval_bad_repeat": {
        "es": "--repeat debe ser 1 o más.",
        "pt": "--repeat deve ser 1 ou mais.",
        "en": "--repeat must be 1 or more.",
    },
    "eval_progress": {
        "es": "evaluando {runs} ejecuciones",
        "pt": "avaliando {runs} execuções",
        "en": "evaluating {runs} runs",
    },
    "eval_title": {
        "es": "Recuperación por brazo: {model} ({runs} ejecuciones; intervalos del 95 %)",
        "pt": "Recuperação por braço: {model} ({runs} execuções; intervalos de 95 %)",
        "en": "Recovery by arm: {model} ({runs} runs; 95% intervals)",
    },
    "eval_columns": {
        "es": "brazo|éxito|recuperación|dobles efectos|éxito falso|peticiones tras parar|"
        "peticiones|tokens|s",
        "pt": "braço|sucesso|recuperação|efeitos duplos|sucesso falso|pedidos após parar|"
        "pedidos|tokens|s",
        "en": "arm|success|recovery|double effects|false success|requests after stop|"
        "requests|tokens|s",
    },
    "eval_broken": {
        "es": "{arm} rompió {invariant} en: {tasks}",
        "pt": "{arm} quebrou {invariant} em: {tasks}",
        "en": "{arm} broke {invariant} in: {tasks}",
    },
    "eval_differences": {
        "es": "Diferencias emparejadas con el brazo contract (misma tarea y semilla):",
        "pt": "Diferenças emparelhadas com o braço contract (mesma tarefa e semente):",
        "en": "Paired differences from the contract arm (same task and seed):",
    },
    "eval_difference": {
        "es": "{arm} - contract, {measure}: {mean} [{low}, {high}] en {pairs} pares",
        "pt": "{arm} - contract, {measure}: {mean} [{low}, {high}] em {pairs} pares",
        "en": "{arm} - contract, {measure}: {mean} [{low}, {high}] over {pairs} pairs",
    },
    "eval_no_pairs": {
        "es": "{arm} - contract, {measure}: sin pares",
        "pt": "{arm} - contract, {measure}: sem pares",
        "en": "{arm} - contract, {measure}: no pairs",
    },
    "eval_wrote": {
        "es": "Escrito en {path}: runs.jsonl, summary.json{charts}",
        "pt": "Escrito em {path}: runs.jsonl, summary.json{charts}",
        "en": "Written to {path}: runs.jsonl, summary.json{charts}",
    },
    "eval_no_charts": {
        "es": "Sin gráficos: necesitan matplotlib (pip install 'surefoot[eval]').",
        "pt": "Sem gráficos: precisam do matplotlib (pip install 'surefoot[eval]').",
        "en": "No charts: they need matplotlib (pip install 'surefoot[eval]').",
    },
}


register("app", _T)


def has_text(name: str) -> bool:
    """Whether Gymnasia has words called ``name``."""
    return name in _T


def t(lang: Lang, name: str, /, **values: object) -> str:
    """Gymnasia text ``name`` in ``lang`` (the catalogue's ``app`` section)."""
    return entry("app", name, lang).format(**values)


__all__ = ["APP_NAME", "day", "number", "quantity", "t"]
